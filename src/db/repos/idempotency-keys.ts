import { errors } from '../../shared/errors.js';
import type { Db, Tx } from '../../shared/sql.js';

// Outbound Idempotency-Key (contract §8): one row per project and key, remembered 24 h, with
// the SHA-256 of the canonical request body and the session the first request created.

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyRecord {
  session_id: string;
  body_sha256: string;
}

/** The live (unexpired) record of a key, or null. */
export async function findIdempotencyKey(sql: Db, projectId: string, key: string, now: Date): Promise<IdempotencyRecord | null> {
  const [row] = await sql<IdempotencyRecord[]>`
    select session_id, body_sha256 from outbound_idempotency_keys
    where project_id = ${projectId} and key = ${key} and expires_at > ${now}`;
  return row ?? null;
}

/**
 * Serialises every admission that carries this key until the transaction ends, so that
 * concurrent duplicates see each other's row (the primary key backs this up).
 */
export async function lockIdempotencyKey(tx: Tx, projectId: string, key: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`outbound-idempotency:${projectId}:${key}`}, 0))`;
}

/** Remembers a key for the session just admitted; an expired row of the same key is replaced. */
export async function rememberIdempotencyKey(
  tx: Tx,
  r: { projectId: string; key: string; bodySha256: string; sessionId: string; now: Date },
): Promise<void> {
  const expiresAt = new Date(r.now.getTime() + IDEMPOTENCY_TTL_MS);
  const rows = await tx`
    insert into outbound_idempotency_keys (project_id, key, body_sha256, session_id, created_at, expires_at)
    values (${r.projectId}, ${r.key}, ${r.bodySha256}, ${r.sessionId}, ${r.now}, ${expiresAt})
    on conflict (project_id, key) do update
      set body_sha256 = excluded.body_sha256, session_id = excluded.session_id,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where outbound_idempotency_keys.expires_at <= ${r.now}
    returning 1`;
  // Only reachable if the advisory lock was bypassed: a live row of the key exists.
  if (rows.length === 0) throw errors.conflict('a request with this Idempotency-Key is in progress');
}

/** Forgets keys older than 24 h; returns how many went. */
export async function deleteExpiredIdempotencyKeys(sql: Db, now: Date, limit = 1000): Promise<number> {
  const rows = await sql`
    delete from outbound_idempotency_keys where ctid in (
      select ctid from outbound_idempotency_keys where expires_at <= ${now} limit ${limit})
    returning 1`;
  return rows.length;
}
