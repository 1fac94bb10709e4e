import type { AppContext } from '../../shared/app-context.js';
import type { Db, Tx } from '../../shared/sql.js';
import { CURRENCY, MONEY_SCALE } from '../../contract/money.js';

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
  /** The publishable key a browser session was started with (its budget counts the session). */
  publishable_key_id: string | null;
  /** The media node admission picked (migration 0016); null: any node may take the call. */
  media_node_id: string | null;
  /** That node's public media URL, the prefix of the session's ws_url or stream URL. */
  media_node_url: string | null;
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
  | 'media_node_id' | 'media_node_url'
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

export async function getSessionById(sql: Db, sessionId: string, forUpdate = false): Promise<SessionRow | undefined> {
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

/**
 * The media of a session whose token was just proven connects: created (or, for a carrier call
 * that rang first, active) becomes active on `nodeId`, the token is spent and the call's clock
 * starts. Undefined when the row is no longer connectable (the caller holds its lock, so only a
 * bug gets here).
 */
export async function markMediaConnected(
  tx: Tx,
  sessionId: string,
  c: { now: Date; nodeId: string; leaseExpiresAt: Date; callSid: string | null },
): Promise<SessionRow | undefined> {
  const [row] = await tx<SessionRow[]>`
    update voice_sessions set status = 'active', token_used_at = ${c.now}, token_hash = null,
      started_at = coalesce(started_at, ${c.now}), media_connected_at = ${c.now}, node_id = ${c.nodeId},
      lease_expires_at = ${c.leaseExpiresAt}, heartbeat_at = ${c.now},
      carrier_call_sid = coalesce(carrier_call_sid, ${c.callSid})
    where id = ${sessionId} and status in ('created', 'active') and settled_at is null
      and media_connected_at is null and token_used_at is null
    returning *`;
  return row;
}

/**
 * Renews `nodeId`'s lease on those of `sessionIds` it is still running (one statement for all).
 * Returns the ids renewed: a missing one was settled meanwhile (or belongs to another node).
 */
export async function renewNodeLeases(db: Db, nodeId: string, sessionIds: string[], now: Date, leaseExpiresAt: Date): Promise<string[]> {
  const rows = await db<{ id: string }[]>`update voice_sessions set lease_expires_at = ${leaseExpiresAt}, heartbeat_at = ${now}
    where node_id = ${nodeId} and status = 'active' and settled_at is null and id = any(${sessionIds}::uuid[])
    returning id`;
  return rows.map((r) => r.id);
}

/** A session that holds a concurrency slot: created with its ws_url still valid, or active. */
export interface SlotHolder {
  id: string;
  project_id: string;
  status: 'created' | 'active';
  token_expires_at: Date;
}

// Live = unsettled and either active, or created with a token window still open (a created
// session past it can no longer connect; the sweeper settles it).
const live = (db: Db, now: Date) => db`settled_at is null and (status = 'active' or (status = 'created' and token_expires_at > ${now}))`;

/** Every live session of every project (rebuilding the slot sets after Redis lost them). */
export async function listSlotHolders(db: Db, now: Date): Promise<SlotHolder[]> {
  return db<SlotHolder[]>`select id, project_id, status, token_expires_at from voice_sessions where ${live(db, now)}`;
}

/** How many live sessions the project has (admission checks it under the wallet lock when the unsettled counter reaches the limit). */
export async function countLiveSessions(db: Db, projectId: string, now: Date): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from voice_sessions where project_id = ${projectId} and ${live(db, now)}`;
  return row.n;
}

export interface Settlement {
  status: 'completed' | 'failed';
  endReason: string;
  endedAt: Date;
  mediaDisconnectedAt: Date | null;
  connectedSeconds: number;
  costNanoUsd: bigint;
  /** Set when an analysis of the call is due (the insights sweeper finds it by this). */
  insightsPendingSince: Date | null;
}

/** Writes the end of a session (in the settling transaction, which holds the row lock). */
export async function settleSessionRow(tx: Tx, sessionId: string, s: Settlement): Promise<SessionRow> {
  const [row] = await tx<SessionRow[]>`
    update voice_sessions set
      status = ${s.status}, ended_at = ${s.endedAt}, end_reason = ${s.endReason},
      media_disconnected_at = ${s.mediaDisconnectedAt}, connected_seconds = ${s.connectedSeconds},
      cost_nano_usd = ${s.costNanoUsd.toString()}, settled_at = ${s.endedAt}, lease_expires_at = null,
      insights_pending_since = ${s.insightsPendingSince}
    where id = ${sessionId} returning *`;
  return row;
}

/** Created sessions whose token window closed unused by `now`, soonest first. */
export async function listExpiredCreatedSessions(db: Db, now: Date, limit: number): Promise<{ id: string }[]> {
  return db<{ id: string }[]>`
    select id from voice_sessions where status = 'created' and settled_at is null and token_expires_at <= ${now}
    order by token_expires_at limit ${limit}`;
}

/** Active sessions whose node stopped renewing its lease (the node died), with its last heartbeat. */
export async function listLapsedActiveSessions(db: Db, now: Date, limit: number): Promise<{ id: string; heartbeat_at: Date | null }[]> {
  return db<{ id: string; heartbeat_at: Date | null }[]>`
    select id, heartbeat_at from voice_sessions where status = 'active' and settled_at is null and lease_expires_at <= ${now}
    order by lease_expires_at limit ${limit}`;
}

/** Moves a not-yet-connected session to another media node (its first one died or drains before the dial). */
export async function setSessionMediaNode(sql: Db, sessionId: string, nodeId: string | null, url: string | null): Promise<void> {
  await sql`update voice_sessions set media_node_id = ${nodeId}, media_node_url = ${url} where id = ${sessionId} and token_used_at is null`;
}
