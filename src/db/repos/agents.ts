import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import type { Db, Tx } from '../../shared/sql.js';
import type { JSONValue } from 'postgres';
import type { AgentVariable, PipelineMode, TransferDestination, VoicemailSetting } from '../../contract/agents.js';

// Agents and their versions. Every write stores the resulting V2AgentInfo in agent_versions
// in the same transaction, so any version a session ran can be read back exactly.

export interface AgentRow {
  id: string;
  project_id: string;
  version: number;
  is_active: boolean;
  name: string;
  display_name: string | null;
  prompt: string;
  greeting: string | null;
  language: string;
  pipeline_mode: PipelineMode;
  pipeline_config: Record<string, Record<string, unknown>>;
  tools: unknown[];
  tool_webhook_url: string | null;
  variables: AgentVariable[];
  backchannel: boolean;
  interruptible_greeting: boolean;
  can_send_dtmf: boolean;
  ambience_level: number | null;
  ambience_sound: string | null;
  dead_air_seconds: number | null;
  idle_warn_seconds: number | null;
  idle_hangup_seconds: number | null;
  max_duration_seconds: number | null;
  max_chars_per_min: number | null;
  record_calls: boolean;
  store_transcript: boolean;
  retention_days: number | null;
  insight_config: Record<string, unknown> | null;
  transfer_destinations: TransferDestination[];
  transfer_timeout_seconds: number | null;
  voicemail: VoicemailSetting | null;
  webhook_url: string | null;
  webhook_include_transcript: boolean;
  webhook_include_recording_url: boolean;
  webhook_secret_sealed: string;
  created_at: Date;
  updated_at: Date;
}

/** The columns a caller may set (everything but identity, version, secret and timestamps). */
export const SETTABLE = [
  'name', 'display_name', 'prompt', 'greeting', 'language', 'pipeline_mode', 'pipeline_config', 'tools',
  'tool_webhook_url', 'variables', 'backchannel', 'interruptible_greeting', 'can_send_dtmf', 'ambience_level', 'ambience_sound',
  'dead_air_seconds', 'idle_warn_seconds', 'idle_hangup_seconds', 'max_duration_seconds', 'max_chars_per_min',
  'record_calls', 'store_transcript', 'retention_days', 'insight_config', 'transfer_destinations', 'transfer_timeout_seconds', 'voicemail', 'webhook_url',
  'webhook_include_transcript', 'webhook_include_recording_url', 'is_active',
] as const;
export type AgentFields = Partial<Pick<AgentRow, (typeof SETTABLE)[number]>>;
const JSON_COLUMNS = new Set(['pipeline_config', 'tools', 'variables', 'insight_config', 'transfer_destinations', 'voicemail']);

export type AgentInfo = ReturnType<typeof toAgentInfo>;

/** V2AgentInfo, in the spec's field order; never the sealed secret. */
export function toAgentInfo(row: AgentRow) {
  return {
    id: row.id,
    project_id: row.project_id,
    name: row.name,
    display_name: row.display_name,
    prompt: row.prompt,
    greeting: row.greeting,
    language: row.language,
    pipeline_mode: row.pipeline_mode,
    pipeline_config: row.pipeline_config,
    tools: row.tools,
    tool_webhook_url: row.tool_webhook_url,
    variables: row.variables,
    backchannel: row.backchannel,
    interruptible_greeting: row.interruptible_greeting,
    can_send_dtmf: row.can_send_dtmf,
    ambience_level: row.ambience_level,
    ambience_sound: row.ambience_sound,
    dead_air_seconds: row.dead_air_seconds,
    idle_warn_seconds: row.idle_warn_seconds,
    idle_hangup_seconds: row.idle_hangup_seconds,
    max_duration_seconds: row.max_duration_seconds,
    max_chars_per_min: row.max_chars_per_min,
    record_calls: row.record_calls,
    store_transcript: row.store_transcript,
    retention_days: row.retention_days,
    insight_config: row.insight_config,
    transfer_destinations: row.transfer_destinations,
    transfer_timeout_seconds: row.transfer_timeout_seconds,
    voicemail: row.voicemail,
    webhook_url: row.webhook_url,
    webhook_include_transcript: row.webhook_include_transcript,
    webhook_include_recording_url: row.webhook_include_recording_url,
    has_webhook_secret: Boolean(row.webhook_secret_sealed),
    is_active: row.is_active,
    version: row.version,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function columnValues(tx: Tx, fields: AgentFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    out[k] = JSON_COLUMNS.has(k) && v !== null ? tx.json(v as never) : v;
  }
  return out;
}

async function storeVersion(tx: Tx, row: AgentRow): Promise<void> {
  // The document is the response as clients see it: dates as ISO strings.
  const doc = JSON.parse(JSON.stringify(toAgentInfo(row))) as JSONValue;
  await tx`insert into agent_versions (agent_id, version, document) values (${row.id}, ${row.version}, ${tx.json(doc)})`;
}

export async function insertAgent(tx: Tx, id: string, projectId: string, fields: AgentFields, secretSealed: string): Promise<AgentRow> {
  const values = { id, project_id: projectId, ...columnValues(tx, fields), webhook_secret_sealed: secretSealed };
  const [row] = await tx<AgentRow[]>`insert into agents ${tx(values as Record<string, string>)} returning *`;
  await storeVersion(tx, row);
  return row;
}

/** Applies `fields`, increments `version` and records the new version. */
export async function updateAgentRow(tx: Tx, agentId: string, fields: AgentFields): Promise<AgentRow> {
  const values = columnValues(tx, fields);
  const [row] = Object.keys(values).length
    ? await tx<AgentRow[]>`
        update agents set ${tx(values as Record<string, string>)}, version = version + 1, updated_at = now()
        where id = ${agentId} returning *`
    : await tx<AgentRow[]>`update agents set version = version + 1, updated_at = now() where id = ${agentId} returning *`;
  await storeVersion(tx, row);
  return row;
}

/** The project's agent, or undefined (another project's agent is indistinguishable from none). */
export async function findAgentRow(db: Db, projectId: string, agentId: string, opts: { lock?: boolean } = {}): Promise<AgentRow | undefined> {
  const [row] = opts.lock
    ? await db<AgentRow[]>`select * from agents where id = ${agentId} and project_id = ${projectId} for update`
    : await db<AgentRow[]>`select * from agents where id = ${agentId} and project_id = ${projectId}`;
  return row;
}

export async function getAgentRow(db: Db, projectId: string, agentId: string, opts: { lock?: boolean } = {}): Promise<AgentRow> {
  const row = await findAgentRow(db, projectId, agentId, opts);
  if (!row) throw errors.notFound('agent not found');
  return row;
}

export async function listAgentRows(sql: Db, projectId: string, o: { limit: number; offset: number; includeInactive: boolean }) {
  return sql<AgentRow[]>`
    select * from agents
    where project_id = ${projectId} ${o.includeInactive ? sql`` : sql`and is_active`}
    order by created_at desc, id desc limit ${o.limit} offset ${o.offset}`;
}

/** The agent exactly as it was at `version` (another project's agent is a 404 like a missing one). */
export async function getAgentVersion(sql: Db, projectId: string, agentId: string, version: number): Promise<Record<string, unknown>> {
  await getAgentRow(sql, projectId, agentId);
  const [row] = await sql<{ document: Record<string, unknown> }[]>`
    select document from agent_versions where agent_id = ${agentId} and version = ${version}`;
  if (!row) throw errors.notFound('agent version not found');
  return row.document;
}

export async function setAgentSecret(tx: Tx, agentId: string, sealed: string): Promise<void> {
  await tx`update agents set webhook_secret_sealed = ${sealed} where id = ${agentId}`;
}

/**
 * Sessions that ran on the agent. The sessions table (voice_sessions) lands with the sessions
 * work; until it exists the count is 0 rather than an error.
 */
export async function countAgentCalls(sql: Db, agentId: string): Promise<number> {
  const [found] = await sql<{ t: string | null }[]>`select to_regclass('voice_sessions')::text as t`;
  if (!found?.t) return 0;
  const [row] = await sql.unsafe<{ n: number }[]>('select count(*)::int as n from voice_sessions where agent_id = $1', [agentId]);
  return row.n;
}

/** The project's agent's webhook secret as sealed (for the caller to decrypt), or null when there is no such agent. */
export async function findAgentSealedSecret(db: Db, projectId: string, agentId: string): Promise<string | null> {
  const [row] = await db<{ webhook_secret_sealed: string }[]>`
    select webhook_secret_sealed from agents where id = ${agentId} and project_id = ${projectId}`;
  return row ? row.webhook_secret_sealed : null;
}

export interface AgentWebhookTarget {
  id: string;
  webhook_url: string | null;
  webhook_include_transcript: boolean;
  webhook_include_recording_url: boolean;
}

/** Where (and with what) the project's agent wants its call events, or undefined when there is no such agent. */
export async function findAgentWebhookTarget(db: Db, projectId: string, agentId: string): Promise<AgentWebhookTarget | undefined> {
  const [row] = await db<AgentWebhookTarget[]>`
    select id, webhook_url, webhook_include_transcript, webhook_include_recording_url from agents
    where id = ${agentId} and project_id = ${projectId}`;
  return row;
}

/** The agent's webhook signing secret (whsec_…), decrypted; null when there is no such agent. */
export async function getAgentWebhookSecret(ctx: AppContext, agentId: string): Promise<string | null> {
  const [row] = await ctx.sql<{ webhook_secret_sealed: string }[]>`select webhook_secret_sealed from agents where id = ${agentId}`;
  if (!row) return null;
  return ctx.keyring.decrypt(row.webhook_secret_sealed, agentId);
}

export interface SessionPipelineStage {
  stage: 'stt' | 'llm' | 'tts' | 'realtime';
  /** The stage as configured on the agent (account_id, model, voice, ...). */
  config: Record<string, unknown>;
  provider: string | null;
  account_revision: number | null;
  account_status: 'unverified' | 'verified' | 'invalid' | 'missing';
  base_url: string | null;
}

export interface SessionAgent {
  agent: AgentInfo;
  pipeline: SessionPipelineStage[];
  /** pipeline_snapshot for the session: each stage plus provider and account_revision, never credentials. */
  snapshot: Record<string, Record<string, unknown>>;
  /** Every stage's account exists (not deleted) and is verified. */
  providers_ready: boolean;
}

/**
 * The current agent of a project with its pipeline's accounts (provider, revision, status,
 * base_url; no credentials), for session admission. Null when the project has no such agent.
 * Use getProviderApiKey (db/repos/provider-accounts) at call time to decrypt a stage's key.
 */
export async function loadAgentForSession(sql: Db, projectId: string, agentId: string): Promise<SessionAgent | null> {
  const row = await findAgentRow(sql, projectId, agentId);
  if (!row) return null;
  const ids = Object.values(row.pipeline_config).map((s) => String(s.account_id));
  const accounts = await sql<{ id: string; provider: string; revision: number; status: SessionPipelineStage['account_status']; base_url: string | null }[]>`
    select id, provider, revision, status, base_url from provider_accounts
    where project_id = ${projectId} and deleted_at is null and id in ${sql(ids)}`;
  const byId = new Map(accounts.map((a) => [a.id, a]));
  const pipeline: SessionPipelineStage[] = Object.entries(row.pipeline_config).map(([stage, config]) => {
    const a = byId.get(String(config.account_id));
    return {
      stage: stage as SessionPipelineStage['stage'],
      config,
      provider: a?.provider ?? null,
      account_revision: a?.revision ?? null,
      account_status: a?.status ?? 'missing',
      base_url: a?.base_url ?? null,
    };
  });
  const snapshot = Object.fromEntries(pipeline.map((p) => [p.stage, { ...p.config, provider: p.provider, account_revision: p.account_revision }]));
  return { agent: toAgentInfo(row), pipeline, snapshot, providers_ready: pipeline.every((p) => p.account_status === 'verified') };
}
