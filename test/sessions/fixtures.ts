import type { Harness } from '../helpers/harness.js';
import { walletCredit } from '../../src/sessions/wallet.js';

// Agents and provider accounts are written straight into their tables here so these tests do
// not depend on the agents routes (another issue); the columns are those of 0002.

export interface AgentFixture {
  agentId: string;
  accountIds: string[];
}

export async function createVerifiedAccount(h: Harness, projectId: string, status = 'verified'): Promise<string> {
  const [row] = await h.ctx.sql`
    insert into provider_accounts (project_id, provider, label, status) values (${projectId}, 'local', 'local', ${status})
    returning id`;
  return row.id as string;
}

export async function createAgent(
  h: Harness,
  projectId: string,
  opts: { variables?: { name: string; required: boolean }[]; maxDurationSeconds?: number | null; active?: boolean; record?: boolean; storeTranscript?: boolean; accountStatus?: string } = {},
): Promise<AgentFixture> {
  const stt = await createVerifiedAccount(h, projectId, opts.accountStatus ?? 'verified');
  const llm = await createVerifiedAccount(h, projectId);
  const tts = await createVerifiedAccount(h, projectId);
  const config = {
    stt: { account_id: stt, model: 'pocketsphinx-en-us' },
    llm: { account_id: llm, model: 'echo' },
    tts: { account_id: tts, model: 'espeak-ng', voice: 'en' },
  };
  const [row] = await h.ctx.sql`
    insert into agents (project_id, name, prompt, language, pipeline_mode, pipeline_config, variables, backchannel,
      can_send_dtmf, max_duration_seconds, record_calls, store_transcript, webhook_include_transcript,
      webhook_include_recording_url, webhook_secret_sealed, is_active)
    values (${projectId}, 'agent', 'Hello {{name}}', 'en-US', 'cascade', ${h.ctx.sql.json(config)},
      ${h.ctx.sql.json(opts.variables ?? [])}, true, false, ${opts.maxDurationSeconds ?? null},
      ${opts.record ?? true}, ${opts.storeTranscript ?? true}, false, false, 'sealed', ${opts.active ?? true})
    returning id`;
  return { agentId: row.id as string, accountIds: [stt, llm, tts] };
}

export const MINUTE_NANO = 5_000_000n;

export async function fund(h: Harness, projectId: string, nanoUsd: bigint): Promise<void> {
  await walletCredit(h.ctx, projectId, nanoUsd);
}
