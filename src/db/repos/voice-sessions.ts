import type { AppContext } from '../../shared/app-context.js';
import type postgres from 'postgres';
import type { Sql } from '../../shared/sql.js';
import { CURRENCY, MONEY_SCALE } from '../../contract/money.js';

/** The pool or a transaction: both run the same tagged-template queries. */
export type Tx = Sql | postgres.TransactionSql<{ bigint: bigint }>;

export type SessionStatus = 'created' | 'active' | 'completed' | 'failed';

/** A voice_sessions row as stored (money as bigint). */
export interface SessionRow {
  id: string;
  project_id: string;
  agent_id: string | null;
  agent_version: number | null;
  status: SessionStatus;
  direction: string;
  language: string;
  pipeline_mode: string;
  pipeline_snapshot: Record<string, unknown>;
  project_revision: number;
  sample_rate_in: number;
  sample_rate_out: number;
  encoding: 'pcm16' | 'opus';
  max_duration_seconds: number;
  connected_seconds: number;
  created_at: Date;
  started_at: Date | null;
  ended_at: Date | null;
  media_connected_at: Date | null;
  media_disconnected_at: Date | null;
  end_reason: string | null;
  record: boolean;
  store_transcript: boolean;
  metadata: Record<string, unknown> | null;
  variables: Record<string, string>;
  insights: Record<string, unknown> | null;
  recording_ref: Record<string, unknown> | null;
  rate_nano_usd_per_min: bigint;
  rate_version: string;
  hold_nano_usd: bigint;
  cost_nano_usd: bigint;
  token_hash: string | null;
  token_expires_at: Date | null;
  token_used_at: Date | null;
  node_id: string | null;
  lease_expires_at: Date | null;
  heartbeat_at: Date | null;
  settled_at: Date | null;
}

/** The spec's VoiceSessionInfo (2.6): money as decimal strings, no token or lease internals. */
export function toSessionInfo(r: SessionRow) {
  return {
    id: r.id,
    project_id: r.project_id,
    agent_id: r.agent_id,
    agent_version: r.agent_version,
    status: r.status,
    direction: r.direction,
    language: r.language,
    pipeline_mode: r.pipeline_mode,
    pipeline_snapshot: r.pipeline_snapshot,
    project_revision: r.project_revision,
    sample_rate_in: r.sample_rate_in,
    sample_rate_out: r.sample_rate_out,
    max_duration_seconds: r.max_duration_seconds,
    connected_seconds: r.connected_seconds,
    created_at: r.created_at,
    started_at: r.started_at,
    ended_at: r.ended_at,
    media_connected_at: r.media_connected_at,
    media_disconnected_at: r.media_disconnected_at,
    end_reason: r.end_reason,
    record: r.record,
    store_transcript: r.store_transcript,
    metadata: r.metadata,
    insights: r.insights,
    recording_ref: r.recording_ref,
    currency: CURRENCY,
    money_scale: MONEY_SCALE,
    rate_nano_usd_per_min: r.rate_nano_usd_per_min.toString(),
    rate_version: r.rate_version,
    hold_nano_usd: r.hold_nano_usd.toString(),
    cost_nano_usd: r.cost_nano_usd.toString(),
  };
}
export type SessionInfo = ReturnType<typeof toSessionInfo>;

export type NewSession = Pick<
  SessionRow,
  | 'project_id' | 'agent_id' | 'agent_version' | 'direction' | 'language' | 'pipeline_mode' | 'pipeline_snapshot'
  | 'project_revision' | 'sample_rate_in' | 'sample_rate_out' | 'encoding' | 'max_duration_seconds' | 'created_at'
  | 'record' | 'store_transcript' | 'metadata' | 'variables' | 'rate_nano_usd_per_min' | 'rate_version'
  | 'hold_nano_usd' | 'token_hash' | 'token_expires_at'
> & { id: string };

export async function insertSession(tx: Tx, s: NewSession): Promise<SessionRow> {
  const [row] = await tx<SessionRow[]>`
    insert into voice_sessions ${tx({
      ...s,
      pipeline_snapshot: tx.json(s.pipeline_snapshot as never),
      metadata: s.metadata === null ? null : tx.json(s.metadata as never),
      variables: tx.json(s.variables),
      rate_nano_usd_per_min: s.rate_nano_usd_per_min.toString(),
      hold_nano_usd: s.hold_nano_usd.toString(),
    } as never)}
    returning *`;
  return row;
}

export async function getSession(ctx: AppContext, projectId: string, sessionId: string): Promise<SessionRow | undefined> {
  const [row] = await ctx.sql<SessionRow[]>`select * from voice_sessions where id = ${sessionId} and project_id = ${projectId}`;
  return row;
}

export async function getSessionById(sql: Tx, sessionId: string, forUpdate = false): Promise<SessionRow | undefined> {
  const [row] = forUpdate
    ? await sql<SessionRow[]>`select * from voice_sessions where id = ${sessionId} for update`
    : await sql<SessionRow[]>`select * from voice_sessions where id = ${sessionId}`;
  return row;
}

export interface SessionFilter {
  status?: SessionStatus | null;
  agent_id?: string | null;
  from?: Date | null;
  to?: Date | null;
  has_insights?: boolean | null;
  limit: number;
  offset: number;
}

/** Newest first by created_at then id (contract §5). */
export async function listSessions(ctx: AppContext, projectId: string, f: SessionFilter): Promise<SessionRow[]> {
  const sql = ctx.sql;
  const status = f.status ? sql`and status = ${f.status}` : sql``;
  const agent = f.agent_id ? sql`and agent_id = ${f.agent_id}` : sql``;
  const from = f.from ? sql`and created_at >= ${f.from}` : sql``;
  const to = f.to ? sql`and created_at <= ${f.to}` : sql``;
  const insights =
    // Spec 2.7: true = the analysis produced a result; a failed analysis (stored so its error can be read) is not one.
    f.has_insights === true
      ? sql`and insights->>'status' = 'completed'`
      : f.has_insights === false
        ? sql`and (insights is null or insights->>'status' is distinct from 'completed')`
        : sql``;
  return sql<SessionRow[]>`
    select * from voice_sessions where project_id = ${projectId} ${status} ${agent} ${from} ${to} ${insights}
    order by created_at desc, id desc limit ${f.limit} offset ${f.offset}`;
}

/** The agent and its pipeline accounts as admission needs them (agent repo's loader will replace this). */
export interface AgentForSession {
  id: string;
  version: number;
  is_active: boolean;
  language: string;
  pipeline_mode: string;
  pipeline_config: Record<string, Record<string, unknown> & { account_id: string }>;
  variables: { name: string; required: boolean }[];
  max_duration_seconds: number | null;
  record_calls: boolean;
  store_transcript: boolean;
}

export interface StageAccount {
  id: string;
  provider: string;
  status: string;
  revision: number;
  deleted_at: Date | null;
}

export async function loadAgentRow(sql: Tx, projectId: string, agentId: string): Promise<AgentForSession | undefined> {
  const [row] = await sql<AgentForSession[]>`
    select id, version, is_active, language, pipeline_mode, pipeline_config, variables,
           max_duration_seconds, record_calls, store_transcript
    from agents where id = ${agentId} and project_id = ${projectId}`;
  return row;
}

export async function loadStageAccounts(sql: Tx, projectId: string, ids: string[]): Promise<Map<string, StageAccount>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<StageAccount[]>`
    select id, provider, status, revision, deleted_at from provider_accounts
    where project_id = ${projectId} and id = any(${ids}::uuid[])`;
  return new Map(rows.map((r) => [r.id, r]));
}
