import type { Harness } from '../helpers/harness.js';
import type { Tenant } from '../helpers/fixtures.js';
import { newWebhookSecret } from '../../src/shared/crypto/tokens.js';
import { startReceiver, type Receiver } from '../fakes/receiver.js';

// Shared pieces of the webhook tests (not a test file itself).

/** Local webhook receivers a test file starts as it goes, closed together at its end. */
export function receiverPool() {
  const started: Receiver[] = [];
  return {
    receiver: async (): Promise<Receiver> => {
      const r = await startReceiver();
      started.push(r);
      return r;
    },
    closeAll: () => Promise.all(started.map((r) => r.close())),
  };
}

export interface Endpoint {
  id: string;
  signing_secret: string;
  revision: number;
}

export async function createEndpoint(h: Harness, tenant: Tenant, url: string, eventTypes: string[] = []): Promise<Endpoint> {
  const res = await h.app.inject({
    method: 'POST',
    url: `/v2/projects/${tenant.projectId}/webhooks`,
    headers: tenant.machine,
    payload: { name: 'test endpoint', url, event_types: eventTypes },
  });
  if (res.statusCode !== 201) throw new Error(`create endpoint: ${res.statusCode} ${res.body}`);
  return res.json();
}

export async function ping(h: Harness, tenant: Tenant, endpointId: string): Promise<{ delivery_id: string; queued: boolean }> {
  const res = await h.app.inject({ method: 'POST', url: `/v2/projects/${tenant.projectId}/webhooks/${endpointId}/test`, headers: tenant.machine });
  if (res.statusCode !== 202) throw new Error(`ping: ${res.statusCode} ${res.body}`);
  return res.json();
}

export interface DeliveryRow {
  id: string;
  status: string;
  attempts: number;
  max_attempts: number;
  last_error: string | null;
  last_status: number | null;
  kind: string;
}

export async function delivery(h: Harness, id: string): Promise<DeliveryRow> {
  const [row] = await h.ctx.sql<DeliveryRow[]>`
    select id, status, attempts, max_attempts, last_error, last_status, kind from webhook_deliveries where id = ${id}`;
  return row;
}

export async function waitForStatus(h: Harness, id: string, status: string, timeoutMs = 10_000): Promise<DeliveryRow> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const row = await delivery(h, id);
    if (row?.status === status) return row;
    if (Date.now() > deadline) throw new Error(`delivery ${id} is ${row?.status}, not ${status}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An agent row written directly (the agents routes are another issue's); returns its secret. */
export async function insertAgent(
  h: Harness,
  projectId: string,
  opts: { webhookUrl: string | null; includeTranscript?: boolean; includeRecordingUrl?: boolean },
): Promise<{ id: string; secret: string }> {
  const [row] = await h.ctx.sql`
    insert into agents (project_id, name, prompt, language, pipeline_mode, pipeline_config, backchannel, can_send_dtmf,
                        record_calls, store_transcript, webhook_url, webhook_include_transcript, webhook_include_recording_url,
                        webhook_secret_sealed)
    values (${projectId}, 'agent', 'hello', 'en-IN', 'cascade', ${h.ctx.sql.json({})}, true, false, false, false,
            ${opts.webhookUrl}, ${opts.includeTranscript ?? false}, ${opts.includeRecordingUrl ?? false}, 'pending')
    returning id`;
  const secret = await rotateAgentSecret(h, row.id);
  return { id: row.id, secret };
}

/** What the agents' rotate-secret does to storage: a new whsec_ sealed with AAD = agent id. */
export async function rotateAgentSecret(h: Harness, agentId: string): Promise<string> {
  const secret = newWebhookSecret();
  await h.ctx.sql`update agents set webhook_secret_sealed = ${h.ctx.keyring.encrypt(secret, agentId)} where id = ${agentId}`;
  return secret;
}

/** A VoiceSessionInfo-shaped document (the sessions table is another issue's). */
export function sessionDoc(projectId: string, agentId: string | null, status = 'completed'): Record<string, unknown> {
  const now = new Date();
  return {
    id: crypto.randomUUID(),
    project_id: projectId,
    agent_id: agentId,
    agent_version: 1,
    status,
    direction: 'web',
    language: 'en-IN',
    pipeline_mode: 'cascade',
    pipeline_snapshot: {},
    project_revision: 1,
    sample_rate_in: 16000,
    sample_rate_out: 24000,
    max_duration_seconds: 600,
    connected_seconds: 61,
    created_at: now,
    started_at: now,
    ended_at: now,
    media_connected_at: now,
    media_disconnected_at: now,
    end_reason: 'caller_hangup',
    record: false,
    store_transcript: false,
    metadata: { order: 42 },
    currency: 'USD',
    money_scale: 1_000_000_000,
    rate_nano_usd_per_min: '5000000',
    rate_version: '2026-01',
    hold_nano_usd: 50_000_000n,
    cost_nano_usd: '10000000',
  };
}
