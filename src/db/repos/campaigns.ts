import type { CallingWindow, CampaignCounters, CampaignStatus } from '../../contract/campaigns.js';
import type { Db, Tx } from '../../shared/sql.js';

// campaigns (migration 0017): one batch of outbound calls. The scheduler holds a campaign's row
// lock (`lockCampaignForTick`) for the length of one tick, so that two workers never dial for the
// same campaign at once; while it holds it, only its own transaction writes this row.

export interface CampaignRow {
  id: string;
  project_id: string;
  name: string;
  agent_id: string;
  status: CampaignStatus;
  from_numbers: string[];
  max_concurrent_calls: number;
  timezone: string;
  calling_windows: CallingWindow[];
  max_attempts: number;
  retry_spacing_seconds: number;
  retry_on: string[];
  max_duration_seconds: number | null;
  record: boolean | null;
  store_transcript: boolean | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  finished_at: Date | null;
}

export type CampaignInsert = Omit<CampaignRow, 'id' | 'status' | 'last_error' | 'updated_at' | 'finished_at'>;

export async function insertCampaign(tx: Tx, c: CampaignInsert): Promise<CampaignRow> {
  const [row] = await tx<CampaignRow[]>`
    insert into campaigns (project_id, name, agent_id, status, from_numbers, max_concurrent_calls, timezone, calling_windows,
      max_attempts, retry_spacing_seconds, retry_on, max_duration_seconds, record, store_transcript, created_at, updated_at)
    values (${c.project_id}, ${c.name}, ${c.agent_id}, 'running', ${c.from_numbers}, ${c.max_concurrent_calls}, ${c.timezone},
      ${tx.json(c.calling_windows)}, ${c.max_attempts}, ${c.retry_spacing_seconds}, ${c.retry_on},
      ${c.max_duration_seconds}, ${c.record}, ${c.store_transcript}, ${c.created_at}, ${c.created_at})
    returning *`;
  return row;
}

export async function findCampaign(db: Db, projectId: string, id: string): Promise<CampaignRow | null> {
  const [row] = await db<CampaignRow[]>`select * from campaigns where id = ${id} and project_id = ${projectId}`;
  return row ?? null;
}

export async function listCampaigns(db: Db, projectId: string, q: { limit: number; offset: number; status?: CampaignStatus | null }): Promise<CampaignRow[]> {
  return db<CampaignRow[]>`
    select * from campaigns
    where project_id = ${projectId} ${q.status ? db`and status = ${q.status}` : db``}
    order by created_at desc, id desc
    limit ${q.limit} offset ${q.offset}`;
}

const EMPTY: CampaignCounters = { total: 0, queued: 0, in_progress: 0, retrying: 0, completed: 0, failed: 0, canceled: 0 };

/** Rows per state of each campaign. */
export async function countCampaignRows(db: Db, campaignIds: string[]): Promise<Map<string, CampaignCounters>> {
  const out = new Map<string, CampaignCounters>(campaignIds.map((id) => [id, { ...EMPTY }]));
  if (campaignIds.length === 0) return out;
  const rows = await db<{ campaign_id: string; state: keyof CampaignCounters; n: number }[]>`
    select campaign_id, state, count(*)::int as n from campaign_rows
    where campaign_id = any(${campaignIds}::uuid[]) group by campaign_id, state`;
  for (const r of rows) {
    const c = out.get(r.campaign_id)!;
    c[r.state] = r.n;
    c.total += r.n;
  }
  return out;
}

/**
 * Moves a campaign from one of `from` to `to` (pause, resume, cancel). Returns the row after
 * the change, or the unchanged row when its status is not in `from` (null: no such campaign).
 */
export async function setCampaignStatus(
  tx: Tx,
  projectId: string,
  id: string,
  from: CampaignStatus[],
  to: CampaignStatus,
  now: Date,
): Promise<{ row: CampaignRow; changed: boolean } | null> {
  const [current] = await tx<CampaignRow[]>`select * from campaigns where id = ${id} and project_id = ${projectId} for no key update`;
  if (!current) return null;
  if (!from.includes(current.status)) return { row: current, changed: false };
  const [row] = await tx<CampaignRow[]>`
    update campaigns set status = ${to}, updated_at = ${now}, last_error = case when ${to}::text = 'running' then null else last_error end
    where id = ${id} returning *`;
  return { row, changed: true };
}

/** Ids of campaigns that still have rows to dial or calls live. */
export async function listUnfinishedCampaignIds(db: Db, limit = 100_000): Promise<string[]> {
  const rows = await db<{ id: string }[]>`select id from campaigns where finished_at is null order by created_at limit ${limit}`;
  return rows.map((r) => r.id);
}

/** The scheduler's claim of one campaign for one tick; null when another worker holds it (or it is finished). */
export async function lockCampaignForTick(tx: Tx, id: string): Promise<CampaignRow | null> {
  const [row] = await tx<CampaignRow[]>`
    select * from campaigns where id = ${id} and finished_at is null for no key update skip locked`;
  return row ?? null;
}

export async function setCampaignError(tx: Tx, id: string, error: string | null, now: Date, pause = false): Promise<void> {
  await tx`
    update campaigns set last_error = ${error}, updated_at = ${now},
      status = case when ${pause}::boolean and status = 'running' then 'paused' else status end
    where id = ${id} and (last_error is distinct from ${error}::text or (${pause}::boolean and status = 'running'))`;
}

/** Marks the campaign finished (completed unless canceled); false when it already was. */
export async function finishCampaign(tx: Tx, id: string, now: Date): Promise<CampaignRow | null> {
  const [row] = await tx<CampaignRow[]>`
    update campaigns set finished_at = ${now}, updated_at = ${now},
      status = case when status = 'canceled' then 'canceled' else 'completed' end
    where id = ${id} and finished_at is null returning *`;
  return row ?? null;
}
