import type { Queryable, Tx } from '../../shared/sql.js';
import type { SessionRow } from './voice-sessions.js';

// The telephony columns of voice_sessions (0008): which carrier and numbers a phone session
// uses, the carrier's CallSid, and the dial bookkeeping that keeps a call from being placed twice.

export interface CarrierCallRow extends SessionRow {
  carrier_id: string | null;
  from_e164: string | null;
  to_e164: string | null;
  carrier_call_sid: string | null;
  dial_started_at: Date | null;
  dial_error: string | null;
  carrier_status: string | null;
  carrier_status_at: Date | null;
}

export type RecordingRef =
  | { provider: 'twilio'; reference_id: string | null; url: string | null; fetched_from: 'carrier' }
  | { provider: 'twilio'; reference_id: null; url: null; fetched_from: 'unavailable'; detail: string };

/** Sets the carrier columns of a session just admitted (same transaction). */
export async function setCallParties(
  tx: Tx,
  sessionId: string,
  p: { carrierId: string; fromE164: string; toE164: string; callSid?: string | null; clearToken?: boolean },
): Promise<CarrierCallRow> {
  const [row] = await tx<CarrierCallRow[]>`
    update voice_sessions set carrier_id = ${p.carrierId}, from_e164 = ${p.fromE164}, to_e164 = ${p.toE164},
      carrier_call_sid = ${p.callSid ?? null},
      token_hash = case when ${p.clearToken ?? false} then null else token_hash end
    where id = ${sessionId} returning *`;
  return row;
}

export async function getCarrierCall(sql: Queryable, sessionId: string, opts: { lock?: boolean } = {}): Promise<CarrierCallRow | null> {
  const [row] = opts.lock
    ? await sql<CarrierCallRow[]>`select * from voice_sessions where id = ${sessionId} for update`
    : await sql<CarrierCallRow[]>`select * from voice_sessions where id = ${sessionId}`;
  return row ?? null;
}

/** The session of a carrier's call, by our session id (outbound callbacks carry it) or by CallSid. */
export async function findCarrierCall(
  tx: Queryable,
  carrierId: string,
  by: { sessionId?: string | null; callSid?: string | null },
  opts: { lock?: boolean } = {},
): Promise<CarrierCallRow | null> {
  const lock = opts.lock ? tx`for update` : tx``;
  if (by.sessionId) {
    const [row] = await tx<CarrierCallRow[]>`select * from voice_sessions where id = ${by.sessionId} and carrier_id = ${carrierId} ${lock}`;
    return row ?? null;
  }
  if (by.callSid) {
    const [row] = await tx<CarrierCallRow[]>`select * from voice_sessions where carrier_id = ${carrierId} and carrier_call_sid = ${by.callSid} ${lock}`;
    return row ?? null;
  }
  return null;
}

/**
 * Claims the one dial of an outbound session: only a created, unsettled session whose dial never
 * started and whose connect window is still open. The new token hash and window are written in the
 * same statement. Committed before Twilio is asked, so a crash after this point cannot dial again.
 */
export async function claimDial(
  sql: Queryable,
  sessionId: string,
  now: Date,
  tokenHash: string,
  tokenExpiresAt: Date,
): Promise<CarrierCallRow | null> {
  const [row] = await sql<CarrierCallRow[]>`
    update voice_sessions set dial_started_at = ${now}, token_hash = ${tokenHash}, token_expires_at = ${tokenExpiresAt}
    where id = ${sessionId} and direction = 'outbound' and status = 'created' and settled_at is null
      and dial_started_at is null and carrier_call_sid is null and token_used_at is null and token_expires_at > ${now}
    returning *`;
  return row ?? null;
}

/** Gives a claim back after an answer that proves no call was created (429), so a retry may dial. */
export async function releaseDial(sql: Queryable, sessionId: string, detail: string): Promise<void> {
  await sql`update voice_sessions set dial_started_at = null, token_hash = null, dial_error = ${detail}
    where id = ${sessionId} and carrier_call_sid is null and status = 'created' and settled_at is null`;
}

/** Twilio created the call: its CallSid (a status callback may have stored it first) and the pending recording. */
export async function recordDialed(sql: Queryable, sessionId: string, callSid: string, recording: RecordingRef | null): Promise<void> {
  await sql`update voice_sessions set carrier_call_sid = coalesce(carrier_call_sid, ${callSid}), dial_error = null,
      recording_ref = coalesce(recording_ref, ${recording ? sql.json(recording) : null}::jsonb)
    where id = ${sessionId}`;
}

/** The dial failed or its outcome is unknown: the reason, and (when a recording was asked for) why there is none. */
export async function recordDialError(sql: Queryable, sessionId: string, detail: string, recording: RecordingRef | null): Promise<void> {
  await sql`update voice_sessions set dial_error = ${detail},
      recording_ref = coalesce(recording_ref, ${recording ? sql.json(recording) : null}::jsonb)
    where id = ${sessionId}`;
}

export async function setRecordingRef(sql: Queryable, sessionId: string, ref: RecordingRef | null): Promise<void> {
  await sql`update voice_sessions set recording_ref = ${ref ? sql.json(ref) : null}::jsonb where id = ${sessionId} and record`;
}

/** A new single-use token for an inbound session Twilio asked about again (same CallSid, not yet connected). */
export async function reissueToken(sql: Queryable, sessionId: string, tokenHash: string, expiresAt: Date): Promise<boolean> {
  const rows = await sql`update voice_sessions set token_hash = ${tokenHash}, token_expires_at = ${expiresAt}
    where id = ${sessionId} and status = 'created' and settled_at is null and token_used_at is null returning 1`;
  return rows.length > 0;
}
