// The project every load benchmark runs its calls in: an account, a project with room for as
// many sessions as the run opens, a funded wallet, and an agent on the local providers (the
// media benchmarks' echo pipeline and the engine's instant fakes never call them).
import type { AppContext } from '../../src/shared/app-context.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { createProject, setProjectLimits } from '../../src/db/repos/projects.js';
import { walletCredit } from '../../src/sessions/wallet.js';

export interface BenchProject {
  projectId: string;
  agentId: string;
}

/** `limits` replaces the default room (100,000 concurrent sessions); `funds` in the wallet's units. */
export async function benchProject(ctx: AppContext, name: string, limits: Parameters<typeof setProjectLimits>[2] = { max_concurrent_sessions: 100_000 }, funds = 10n ** 15n): Promise<BenchProject> {
  const account = await createAccount(ctx, `bench-${name}-${process.pid}@example.com`, 'bench password 123', true);
  const project = await createProject(ctx, account.id, name);
  await setProjectLimits(ctx, project.id, limits);
  await walletCredit(ctx, project.id, funds);
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) {
    const [r] = await ctx.sql`insert into provider_accounts (project_id, provider, label, status) values (${project.id}, 'local', 'local', 'verified') returning id`;
    ids.push(r.id as string);
  }
  const pipeline = { stt: { account_id: ids[0], model: 'pocketsphinx-en-us' }, llm: { account_id: ids[1], model: 'echo' }, tts: { account_id: ids[2], model: 'espeak-ng', voice: 'en' } };
  const [agent] = await ctx.sql`
    insert into agents (project_id, name, prompt, language, pipeline_mode, pipeline_config, backchannel, can_send_dtmf,
      record_calls, store_transcript, webhook_include_transcript, webhook_include_recording_url, webhook_secret_sealed)
    values (${project.id}, 'bench', 'echo', 'en-US', 'cascade', ${ctx.sql.json(pipeline)}, false, false, false, false, false, false, 'x')
    returning id`;
  return { projectId: project.id, agentId: agent.id as string };
}
