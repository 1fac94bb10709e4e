import type { Db } from '../../shared/sql.js';

// idempotency_keys (migration 0012): one row per project and Idempotency-Key, kept 24 h. A
// request claims the key (`pending`, with an owner id and a lease), then records the response
// it sent (`done`) or, when it failed, gives the key back.

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRow {
  request_sha256: string;
  state: 'pending' | 'done';
  owner: string;
  locked_until: Date | null;
  status_code: number | null;
  response: string | null;
}

export interface Claim {
  projectId: string;
  key: string;
  requestSha256: string;
  owner: string;
  now: Date;
  leaseMs: number;
}

/**
 * Claims the key for `owner`: a new key, an expired one, or a pending one of the same request
 * whose lease ran out (its request died). Returns null when claimed, else the live row.
 */
export async function claimIdempotencyKey(sql: Db, c: Claim): Promise<IdempotencyRow | null> {
  const lockedUntil = new Date(c.now.getTime() + c.leaseMs);
  const expiresAt = new Date(c.now.getTime() + IDEMPOTENCY_TTL_MS);
  const [row] = await sql<{ owner: string }[]>`
    insert into idempotency_keys (project_id, key, request_sha256, state, owner, locked_until, created_at, expires_at)
    values (${c.projectId}, ${c.key}, ${c.requestSha256}, 'pending', ${c.owner}, ${lockedUntil}, ${c.now}, ${expiresAt})
    on conflict (project_id, key) do update
      set request_sha256 = excluded.request_sha256, state = 'pending', owner = excluded.owner,
          locked_until = excluded.locked_until, status_code = null, response = null,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= ${c.now}
         or (idempotency_keys.state = 'pending' and idempotency_keys.locked_until <= ${c.now}
             and idempotency_keys.request_sha256 = excluded.request_sha256)
    returning owner`;
  if (row?.owner === c.owner) return null;
  const live = await findIdempotencyKey(sql, c.projectId, c.key, c.now);
  // Gone between the two statements (its request failed and gave it back): try again.
  return live ?? claimIdempotencyKey(sql, c);
}

/** The live (unexpired) row of a key, or null. */
export async function findIdempotencyKey(sql: Db, projectId: string, key: string, now: Date): Promise<IdempotencyRow | null> {
  const [row] = await sql<IdempotencyRow[]>`
    select request_sha256, state, owner, locked_until, status_code, response from idempotency_keys
    where project_id = ${projectId} and key = ${key} and expires_at > ${now}`;
  return row ?? null;
}

/** Records the response `owner` sent; false when the claim was lost (taken over after its lease). */
export async function completeIdempotencyKey(sql: Db, projectId: string, key: string, owner: string, status: number, response: string): Promise<boolean> {
  const rows = await sql`
    update idempotency_keys set state = 'done', status_code = ${status}, response = ${response}, locked_until = null
    where project_id = ${projectId} and key = ${key} and owner = ${owner} and state = 'pending'
    returning 1`;
  return rows.length === 1;
}

/** Gives back a key whose request failed, so that a retry with it runs again. */
export async function releaseIdempotencyKey(sql: Db, projectId: string, key: string, owner: string): Promise<void> {
  await sql`delete from idempotency_keys where project_id = ${projectId} and key = ${key} and owner = ${owner} and state = 'pending'`;
}

/** Forgets keys older than 24 h; returns how many went. */
export async function deleteExpiredIdempotencyKeys(sql: Db, now: Date, limit = 1000): Promise<number> {
  const rows = await sql`
    delete from idempotency_keys where ctid in (
      select ctid from idempotency_keys where expires_at <= ${now} limit ${limit})
    returning 1`;
  return rows.length;
}
