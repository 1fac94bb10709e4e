import type { Db, Sql, Tx } from '../../shared/sql.js';
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
  | { provider: 'twilio' | 'telnyx'; reference_id: string | null; url: string | null; fetched_from: 'carrier' }
  | { provider: 'twilio' | 'telnyx'; reference_id: null; url: null; fetched_from: 'unavailable'; detail: string };

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

export async function getCarrierCall(sql: Db, sessionId: string, opts: { lock?: boolean } = {}): Promise<CarrierCallRow | null> {
  const [row] = opts.lock
    ? await sql<CarrierCallRow[]>`select * from voice_sessions where id = ${sessionId} for update`
    : await sql<CarrierCallRow[]>`select * from voice_sessions where id = ${sessionId}`;
  return row ?? null;
}

/** The session of a carrier's call, by our session id (outbound callbacks carry it) or by CallSid. */
export async function findCarrierCall(
  tx: Db,
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
  sql: Db,
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
export async function releaseDial(sql: Db, sessionId: string, detail: string): Promise<void> {
  await sql`update voice_sessions set dial_started_at = null, token_hash = null, dial_error = ${detail}
    where id = ${sessionId} and carrier_call_sid is null and status = 'created' and settled_at is null`;
}

/** Twilio created the call: its CallSid (a status callback may have stored it first) and the pending recording. */
export async function recordDialed(sql: Db, sessionId: string, callSid: string, recording: RecordingRef | null): Promise<void> {
  await sql`update voice_sessions set carrier_call_sid = coalesce(carrier_call_sid, ${callSid}), dial_error = null,
      recording_ref = coalesce(recording_ref, ${recording ? sql.json(recording) : null}::jsonb)
    where id = ${sessionId}`;
}

/** The dial failed or its outcome is unknown: the reason, and (when a recording was asked for) why there is none. */
export async function recordDialError(sql: Db, sessionId: string, detail: string, recording: RecordingRef | null): Promise<void> {
  await sql`update voice_sessions set dial_error = ${detail},
      recording_ref = coalesce(recording_ref, ${recording ? sql.json(recording) : null}::jsonb)
    where id = ${sessionId}`;
}

export async function setRecordingRef(sql: Db, sessionId: string, ref: RecordingRef | null): Promise<void> {
  await sql`update voice_sessions set recording_ref = ${ref ? sql.json(ref) : null}::jsonb where id = ${sessionId} and record`;
}

/** A new single-use token for an inbound session Twilio asked about again (same CallSid, not yet connected). */
export async function reissueToken(sql: Db, sessionId: string, tokenHash: string, expiresAt: Date): Promise<boolean> {
  const rows = await sql`update voice_sessions set token_hash = ${tokenHash}, token_expires_at = ${expiresAt}
    where id = ${sessionId} and status = 'created' and settled_at is null and token_used_at is null returning 1`;
  return rows.length > 0;
}

/** What a status callback moves forward on the call's row (all optional; recording_ref as a JSON value). */
export interface CallProgress {
  carrier_call_sid?: string;
  carrier_status?: string;
  carrier_status_at?: Date;
  recording_ref?: RecordingRef;
  status?: 'active';
  started_at?: Date;
  lease_expires_at?: Date;
  token_hash?: null;
}

export async function recordCallProgress(tx: Tx, sessionId: string, p: CallProgress): Promise<void> {
  const set: Record<string, unknown> = { ...p };
  if (p.recording_ref) set.recording_ref = tx.json(p.recording_ref);
  await tx`update voice_sessions set ${tx(set as never)} where id = ${sessionId}`;
}

/** Outbound sessions admitted before `createdBefore` whose dial never started (its job never queued), oldest first. */
export async function listUndialedOutbound(db: Db, createdBefore: Date, now: Date, limit: number): Promise<{ id: string }[]> {
  return db<{ id: string }[]>`
    select id from voice_sessions
    where direction = 'outbound' and status = 'created' and carrier_call_sid is null and settled_at is null
      and dial_started_at is null and created_at <= ${createdBefore}
      and token_expires_at > ${now}
    order by created_at limit ${limit}`;
}

/**
 * Outbound dials started before `startedBefore` that the carrier never confirmed (no CallSid),
 * locked and disarmed (token cleared) in one transaction, so no stream can start on a call about
 * to be given up. Rows another transaction holds are skipped.
 */
export async function disarmUnconfirmedDials(sql: Sql, startedBefore: Date, limit: number): Promise<{ id: string; record: boolean }[]> {
  return sql.begin(async (tx) => {
    const rows = await tx<{ id: string; record: boolean }[]>`
      select id, record from voice_sessions
      where direction = 'outbound' and status = 'created' and carrier_call_sid is null and settled_at is null
        and dial_started_at <= ${startedBefore}
      order by created_at limit ${limit} for update skip locked`;
    if (rows.length) await tx`update voice_sessions set token_hash = null where id = any(${rows.map((r) => r.id)}::uuid[])`;
    return rows;
  });
}

/** Phone sessions that rang or were answered but whose media stream never came before the token window closed. */
export async function listPhoneCallsWithoutMedia(db: Db, now: Date, limit: number): Promise<{ id: string }[]> {
  return db<{ id: string }[]>`
    select id from voice_sessions
    where direction in ('outbound', 'inbound') and status = 'active' and media_connected_at is null and settled_at is null
      and token_expires_at <= ${now}
    order by token_expires_at limit ${limit}`;
}
