import type { RowState } from '../../contract/campaigns.js';
import type { Db, Tx } from '../../shared/sql.js';

// campaign_rows and campaign_attempts (migration 0017). A row is queued or retrying (waiting for
// `next_attempt_at`), in_progress (its attempt's session is live), then completed, failed or
// canceled. An attempt is recorded inside the admission transaction of its session
// (`recordAttempt`), so a row's state and its sessions never disagree, whatever crashes.

export interface RowInsert {
  position: number;
  to: string;
  timezone: string | null;
  variables: Record<string, string>;
  metadata: Record<string, unknown> | null;
}

/** Inserts every row of a new campaign in one statement (unnest: no parameter-count limit). */
export async function insertCampaignRows(tx: Tx, campaignId: string, rows: RowInsert[], now: Date): Promise<void> {
  await tx`
    insert into campaign_rows (campaign_id, position, to_e164, timezone, variables, metadata, state, next_attempt_at, updated_at)
    select ${campaignId}, u.p, u.t, u.z, u.v::jsonb, u.m::jsonb, 'queued', null, ${now}
    from unnest(${rows.map((r) => r.position)}::int[], ${rows.map((r) => r.to)}::text[], ${rows.map((r) => r.timezone)}::text[],
                ${rows.map((r) => JSON.stringify(r.variables))}::text[], ${rows.map((r) => (r.metadata ? JSON.stringify(r.metadata) : null))}::text[])
      as u(p, t, z, v, m)`;
}

export interface DueRow {
  id: string;
  position: number;
  to_e164: string;
  timezone: string | null;
  variables: Record<string, string>;
  metadata: Record<string, unknown> | null;
  attempts: number;
}

/** Rows waiting to be dialled whose time has come, oldest due first. */
export async function listDueRows(db: Db, campaignId: string, now: Date, limit: number): Promise<DueRow[]> {
  return db<DueRow[]>`
    select id, position, to_e164, timezone, variables, metadata, attempts from campaign_rows
    where campaign_id = ${campaignId} and state in ('queued', 'retrying')
      and (next_attempt_at is null or next_attempt_at <= ${now})
    order by next_attempt_at nulls first, position limit ${limit}`;
}

/** Moves waiting rows to a later time (outside their calling window until then). */
export async function deferRows(db: Db, rows: { id: string; at: Date }[], now: Date): Promise<void> {
  if (rows.length === 0) return;
  await db`
    update campaign_rows r set next_attempt_at = u.at, updated_at = ${now}
    from unnest(${rows.map((r) => r.id)}::uuid[], ${rows.map((r) => r.at.toISOString())}::timestamptz[]) as u(id, at)
    where r.id = u.id and r.state in ('queued', 'retrying')`;
}

export async function countLiveRows(db: Db, campaignId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from campaign_rows where campaign_id = ${campaignId} and state = 'in_progress'`;
  return row.n;
}

/** Rows still to dial or live. */
export async function countUnfinishedRows(db: Db, campaignId: string): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from campaign_rows where campaign_id = ${campaignId} and state in ('queued', 'retrying', 'in_progress')`;
  return row.n;
}

export class AttemptTaken extends Error {
  constructor() {
    super('this attempt of the campaign row was already admitted');
  }
}

/**
 * Inside the admission transaction of the attempt's session: records attempt `attempt` of the
 * row and marks the row in_progress. Throws AttemptTaken (rolling the admission back) when the
 * row is no longer waiting for exactly this attempt; the (row, attempt) primary key refuses a
 * racing twin even before that.
 */
export async function recordAttempt(tx: Tx, a: { rowId: string; attempt: number; sessionId: string; from: string; now: Date }): Promise<void> {
  const updated = await tx`
    update campaign_rows set state = 'in_progress', attempts = ${a.attempt}, session_id = ${a.sessionId},
      last_error = null, updated_at = ${a.now}
    where id = ${a.rowId} and state in ('queued', 'retrying') and attempts = ${a.attempt - 1}
    returning 1`;
  if (updated.length !== 1) throw new AttemptTaken();
  await tx`
    insert into campaign_attempts (row_id, attempt, session_id, from_e164, created_at)
    values (${a.rowId}, ${a.attempt}, ${a.sessionId}, ${a.from}, ${a.now})`;
}

export interface EndedRow {
  id: string;
  attempts: number;
  status: string | null;
  end_reason: string | null;
}

/** In-progress rows whose session has ended (or is gone). */
export async function listEndedRows(db: Db, campaignId: string, limit = 1000): Promise<EndedRow[]> {
  return db<EndedRow[]>`
    select r.id, r.attempts, s.status, s.end_reason
    from campaign_rows r left join voice_sessions s on s.id = r.session_id
    where r.campaign_id = ${campaignId} and r.state = 'in_progress'
      and (s.id is null or s.status in ('completed', 'failed'))
    limit ${limit}`;
}

/** Settles an in-progress row after its attempt ended: done, failed, or retrying at `nextAttemptAt`. */
export async function settleRow(
  db: Db,
  r: { id: string; attempt: number; state: Extract<RowState, 'completed' | 'failed' | 'retrying' | 'canceled'>; outcome: string | null; nextAttemptAt: Date | null; now: Date },
): Promise<void> {
  await db`
    update campaign_rows set state = ${r.state}, outcome = ${r.outcome}, updated_at = ${r.now},
      next_attempt_at = coalesce(${r.nextAttemptAt}::timestamptz, next_attempt_at)
    where id = ${r.id} and state = 'in_progress' and attempts = ${r.attempt}`;
}

/** A row that admission refused for itself (its variables no longer fit the agent). */
export async function rejectRow(db: Db, id: string, error: string, now: Date): Promise<void> {
  await db`
    update campaign_rows set state = 'failed', outcome = 'rejected', last_error = ${error}, updated_at = ${now}
    where id = ${id} and state in ('queued', 'retrying')`;
}

/** Cancel: every row not yet dialled (or waiting for a retry) is canceled; live calls go on. */
export async function cancelWaitingRows(tx: Tx, campaignId: string, now: Date): Promise<number> {
  const rows = await tx`
    update campaign_rows set state = 'canceled', updated_at = ${now}
    where campaign_id = ${campaignId} and state in ('queued', 'retrying') returning 1`;
  return rows.length;
}

export interface RowPageEntry {
  id: string;
  position: number;
  to_e164: string;
  timezone: string | null;
  state: RowState;
  attempts: number;
  next_attempt_at: Date | null;
  outcome: string | null;
  last_error: string | null;
  metadata: Record<string, unknown> | null;
  results: { attempt: number; session_id: string; from: string; status: string; end_reason: string | null; created_at: string }[];
}

/** A page of a campaign's rows by index, each with its attempts and their sessions' status. */
export async function listRowsPage(db: Db, campaignId: string, q: { limit: number; offset: number; state?: RowState | null }): Promise<RowPageEntry[]> {
  return db<RowPageEntry[]>`
    select r.id, r.position, r.to_e164, r.timezone, r.state, r.attempts, r.next_attempt_at, r.outcome, r.last_error, r.metadata,
      coalesce((
        select json_agg(json_build_object('attempt', a.attempt, 'session_id', a.session_id, 'from', a.from_e164,
                 'status', s.status, 'end_reason', s.end_reason, 'created_at', a.created_at) order by a.attempt)
        from campaign_attempts a join voice_sessions s on s.id = a.session_id where a.row_id = r.id
      ), '[]'::json) as results
    from campaign_rows r
    where r.campaign_id = ${campaignId} ${q.state ? db`and r.state = ${q.state}` : db``}
    order by r.position limit ${q.limit} offset ${q.offset}`;
}
