import { randomUUID } from 'node:crypto';
import type { Harness } from '../helpers/harness.js';
import type { Tenant } from '../helpers/fixtures.js';
import { insertAgent } from '../../src/db/repos/agents.js';
import { activateSession } from '../../src/sessions/lifecycle.js';
import { newWebhookSecret } from '../../src/shared/crypto/tokens.js';
import type { TranscriptEntry } from '../../src/contract/events.js';

// Shared by the transcript and insights tests (not a test file itself). Agents are written
// with the agents repo, so agent_versions holds each version as the API would record it.

export interface LlmSpec {
  provider: 'local' | 'openai' | 'anthropic';
  model: string;
  baseUrl?: string;
  apiKey?: string;
}

export async function providerAccount(h: Harness, projectId: string, provider: string, opts: { baseUrl?: string; apiKey?: string } = {}): Promise<string> {
  const id = randomUUID();
  const sealed = opts.apiKey ? h.ctx.keyring.encrypt(JSON.stringify({ api_key: opts.apiKey }), id) : null;
  await h.ctx.sql`
    insert into provider_accounts (id, project_id, provider, label, base_url, credentials_sealed, key_hint, status)
    values (${id}, ${projectId}, ${provider}, ${provider}, ${opts.baseUrl ?? null}, ${sealed}, ${opts.apiKey?.slice(-4) ?? ''}, 'verified')`;
  return id;
}

export interface AgentOptions {
  storeTranscript?: boolean;
  retentionDays?: number | null;
  insightConfig?: Record<string, unknown> | null;
  llm?: LlmSpec;
  /** A realtime agent on this provider account instead of a cascade. */
  realtime?: { baseUrl: string; apiKey: string };
  webhookUrl?: string | null;
  includeTranscript?: boolean;
}

export async function createAgentVersioned(h: Harness, projectId: string, o: AgentOptions = {}): Promise<{ agentId: string; secret: string }> {
  let pipeline: Record<string, Record<string, unknown>>;
  if (o.realtime) {
    const acc = await providerAccount(h, projectId, 'openai', o.realtime);
    pipeline = { realtime: { account_id: acc, model: 'gpt-realtime', voice: 'marin' } };
  } else {
    const llm = o.llm ?? { provider: 'local', model: 'echo' };
    pipeline = {
      stt: { account_id: await providerAccount(h, projectId, 'local'), model: 'pocketsphinx-en-us' },
      llm: { account_id: await providerAccount(h, projectId, llm.provider, llm), model: llm.model },
      tts: { account_id: await providerAccount(h, projectId, 'local'), model: 'espeak-ng', voice: 'en' },
    };
  }
  const id = randomUUID();
  const secret = newWebhookSecret();
  await h.ctx.sql.begin((tx) =>
    insertAgent(
      tx,
      id,
      projectId,
      {
        name: 'agent',
        prompt: 'You help.',
        language: 'en-US',
        pipeline_mode: o.realtime ? 'realtime' : 'cascade',
        pipeline_config: pipeline,
        backchannel: true,
        can_send_dtmf: false,
        record_calls: false,
        store_transcript: o.storeTranscript ?? true,
        retention_days: o.retentionDays ?? null,
        insight_config: o.insightConfig ?? null,
        webhook_url: o.webhookUrl ?? null,
        webhook_include_transcript: o.includeTranscript ?? false,
        webhook_include_recording_url: false,
      },
      h.ctx.keyring.encrypt(secret, id),
    ),
  );
  return { agentId: id, secret };
}

/** Admits a session through the API and connects its media: the session is active. */
export async function activeSession(h: Harness, tenant: Tenant, agentId: string, body: Record<string, unknown> = {}): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agentId, ...body } });
  if (res.statusCode !== 201) throw new Error(`admission failed: ${res.statusCode} ${res.body}`);
  const json = res.json();
  const token = new URL(json.ws_url).searchParams.get('token')!;
  const act = await activateSession(h.ctx, json.session.id, token, 'node-test');
  if (!act.ok) throw new Error(`activation failed: ${JSON.stringify(act)}`);
  return json.session.id as string;
}

export const TRANSCRIPT: TranscriptEntry[] = [
  { role: 'assistant', text: 'Hello, how can I help?', start_ms: 100, end_ms: 1400 },
  { role: 'user', text: 'I want to book a table for four on Friday.', start_ms: 2000, end_ms: 4200 },
  { role: 'assistant', text: 'Done: Friday, four people.', start_ms: 4500, end_ms: 6000 },
  { role: 'user', text: 'Thanks, bye.', start_ms: 6500, end_ms: 7100 },
];

export async function waitFor<T>(fn: () => Promise<T | null | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}
