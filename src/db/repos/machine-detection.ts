import type { Db } from '../../shared/sql.js';

// The carrier's answering-machine verdict on an outbound call (voice_sessions.answered_by,
// migration 0019). It is stored, and announced with a Postgres NOTIFY in the same transaction, so
// the media node running the call hears it at once and a node that starts the call later reads it.

/** The NOTIFY channel; the payload is `{session_id, answered_by}` as JSON. */
export const MACHINE_DETECTION_CHANNEL = 'voice_machine_detection';

/**
 * Keeps the first verdict of an unsettled session of this carrier (a different CallSid than the
 * session's is not this call) and announces it. False when nothing was stored.
 */
export async function recordAnsweredBy(sql: Db, carrierId: string, sessionId: string, callSid: string | null, answeredBy: string): Promise<boolean> {
  const rows = await sql<{ id: string }[]>`
    update voice_sessions set answered_by = ${answeredBy}
    where id = ${sessionId} and carrier_id = ${carrierId} and settled_at is null and answered_by is null
      and (${callSid}::text is null or carrier_call_sid is null or carrier_call_sid = ${callSid}::text)
    returning id`;
  if (rows.length === 0) return false;
  await sql`select pg_notify(${MACHINE_DETECTION_CHANNEL}, ${JSON.stringify({ session_id: sessionId, answered_by: answeredBy })})`;
  return true;
}

export async function getAnsweredBy(sql: Db, sessionId: string): Promise<string | null> {
  const [row] = await sql<{ answered_by: string | null }[]>`select answered_by from voice_sessions where id = ${sessionId}`;
  return row?.answered_by ?? null;
}
