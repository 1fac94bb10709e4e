import type { Db } from '../../shared/sql.js';

// The hand-over of a phone call to a person (0018): when it happened and to whom. Written just
// before the carrier is asked to move the caller, so that however the media then ends (our own
// close, the carrier's stop, a crash), settlement bills up to the hand-over and names it.

export type TransferMode = 'cold' | 'warm';

export interface SessionTransfer {
  destination: string;
  e164: string;
  mode: TransferMode;
}

export interface HandOver {
  at: Date;
  transfer: SessionTransfer;
}

/** Records the hand-over of a live, unsettled session; false when the call is no longer live. */
export async function beginHandOver(sql: Db, sessionId: string, transfer: SessionTransfer, at: Date): Promise<boolean> {
  const rows = await sql`
    update voice_sessions set transferred_at = ${at}, transfer = ${sql.json(transfer as never)}
    where id = ${sessionId} and status = 'active' and settled_at is null returning id`;
  return rows.length === 1;
}

/** The carrier refused to move the caller: the call goes on as before. */
export async function cancelHandOver(sql: Db, sessionId: string): Promise<void> {
  await sql`update voice_sessions set transferred_at = null, transfer = null where id = ${sessionId} and settled_at is null`;
}

/** The hand-over a session row (select *) records, or null. */
export function handOverOf(row: object): HandOver | null {
  const r = row as { transferred_at?: Date | null; transfer?: SessionTransfer | null };
  return r.transferred_at && r.transfer ? { at: r.transferred_at, transfer: r.transfer } : null;
}
