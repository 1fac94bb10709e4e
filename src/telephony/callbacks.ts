import type { AppContext } from '../shared/app-context.js';
import { findCarrierCall, recordCallProgress, setRecordingRef, type CallProgress, type CarrierCallRow, type RecordingRef } from '../db/repos/carrier-calls.js';
import type { CarrierInfo } from '../db/repos/carriers.js';
import { endSession, type EndSignal } from '../sessions/settlement.js';
import { pendingRecording } from './dial.js';
import { RINGING_LEASE_MARGIN_MS } from './timing.js';
import type { Tx } from '../shared/sql.js';

// Twilio's status and recording callbacks (already signature-checked by the route). Twilio
// retries them and does not promise their order, so each one is applied under the session's row
// lock, only ever moves a session forward, and is a no-op once the session is settled.
//   ringing, in-progress (answered)      → created becomes active (the media stream sets media_connected_at)
//   completed                            → if the stream never connected: failed / not_connected;
//                                          otherwise the stream's own end settles the call
//   busy / no-answer / failed / canceled → failed / busy, no_answer, carrier_error (if no stream)

const CALL_SID = /^CA[0-9a-fA-F]{32}$/;
const RECORDING_SID = /^RE[0-9a-fA-F]{32}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** How far along a call each CallStatus is; the stored status never moves back. */
const RANK: Record<string, number> = {
  queued: 0,
  initiated: 0,
  ringing: 1,
  'in-progress': 2,
  completed: 3,
  busy: 3,
  'no-answer': 3,
  failed: 3,
  canceled: 3,
};
const TERMINAL: Record<string, EndSignal['endReason']> = {
  completed: 'not_connected',
  busy: 'busy',
  'no-answer': 'no_answer',
  failed: 'carrier_error',
  canceled: 'carrier_error',
};

export type CallbackResult = 'applied' | 'ignored';

export const sessionOf = (query: Record<string, unknown>) => (typeof query.session_id === 'string' && UUID.test(query.session_id) ? query.session_id : null);
const callSidOf = (form: URLSearchParams) => {
  const sid = form.get('CallSid');
  return sid && CALL_SID.test(sid) ? sid : null;
};

/** The row of this callback's call; null when the session is not this carrier's or names another call. */
async function lockCall(tx: Tx, carrierId: string, sessionId: string | null, callSid: string | null): Promise<CarrierCallRow | null> {
  const row = await findCarrierCall(tx, carrierId, { sessionId, callSid }, { lock: true });
  if (!row) return null;
  if (row.carrier_call_sid && callSid && row.carrier_call_sid !== callSid) return null;
  return row;
}

export async function handleStatusCallback(ctx: AppContext, carrier: CarrierInfo, form: URLSearchParams, query: Record<string, unknown>): Promise<CallbackResult> {
  return applyCallStatus(ctx, carrier, { sessionId: sessionOf(query), callSid: callSidOf(form), status: form.get('CallStatus') ?? '' });
}

/**
 * One call progress report, whichever carrier: `status` in Twilio's CallStatus words (other
 * carriers' events are mapped to them), the call found by our session id and/or the carrier's call id.
 */
export async function applyCallStatus(
  ctx: AppContext,
  carrier: CarrierInfo,
  report: { sessionId: string | null; callSid: string | null; status: string },
): Promise<CallbackResult> {
  const { sessionId, callSid, status } = report;
  if (!(status in RANK)) return 'ignored';
  const pending: { end?: { id: string; signal: EndSignal } } = {};

  const applied = await ctx.sql.begin(async (tx) => {
    const row = await lockCall(tx, carrier.id, sessionId, callSid);
    if (!row) return false;
    const now = ctx.clock.now();
    const set: CallProgress = {};
    if (!row.carrier_call_sid && callSid) set.carrier_call_sid = callSid;
    if (RANK[status] >= (row.carrier_status ? (RANK[row.carrier_status] ?? -1) : -1)) Object.assign(set, { carrier_status: status, carrier_status_at: now });
    // A dial whose answer was lost is confirmed by this callback: the recording is now pending.
    if (row.direction === 'outbound' && row.record && !row.recording_ref) set.recording_ref = pendingRecording(carrier.kind);
    if (!row.settled_at) {
      if ((status === 'ringing' || status === 'in-progress') && row.status === 'created') {
        const leaseMs = (row.token_expires_at ?? now).getTime() + RINGING_LEASE_MARGIN_MS;
        Object.assign(set, { status: 'active', started_at: now, lease_expires_at: new Date(leaseMs) });
      } else if (TERMINAL[status] && row.media_connected_at === null) {
        // No stream ever connected: disarm the token so that none can start now, then settle.
        set.token_hash = null;
        pending.end = { id: row.id, signal: { outcome: 'failed', endReason: TERMINAL[status] } };
      }
    }
    if (Object.keys(set).length) await recordCallProgress(tx, row.id, set);
    return true;
  });
  if (pending.end) await endSession(ctx, pending.end.id, pending.end.signal);
  return applied ? 'applied' : 'ignored';
}

export async function handleRecordingCallback(ctx: AppContext, carrier: CarrierInfo, form: URLSearchParams, query: Record<string, unknown>): Promise<CallbackResult> {
  const status = form.get('RecordingStatus') ?? '';
  const recordingSid = form.get('RecordingSid') ?? '';
  const url = form.get('RecordingUrl') ?? '';
  let ref: RecordingRef | null | undefined;
  if (status === 'completed') {
    if (!RECORDING_SID.test(recordingSid) || !/^https?:\/\/\S{1,2040}$/.test(url)) return 'ignored';
    ref = { provider: 'twilio', reference_id: recordingSid, url, fetched_from: 'carrier' };
  } else if (status === 'absent') {
    ref = null; // Twilio made no recording (spec 2.6: null when there is no recording)
  } else if (status === 'failed') {
    ref = { provider: 'twilio', reference_id: null, url: null, fetched_from: 'unavailable', detail: 'The carrier reported that the recording failed.' };
  } else {
    return 'ignored'; // in-progress and anything newer
  }
  return applyRecordingRef(ctx, carrier, { sessionId: sessionOf(query), callSid: callSidOf(form) }, ref ?? null);
}

/** A recording outcome, whichever carrier (null: the carrier made none). */
export async function applyRecordingRef(
  ctx: AppContext,
  carrier: CarrierInfo,
  call: { sessionId: string | null; callSid: string | null },
  ref: RecordingRef | null,
): Promise<CallbackResult> {
  return ctx.sql.begin(async (tx) => {
    const row = await lockCall(tx, carrier.id, call.sessionId, call.callSid);
    if (!row || !row.record) return 'ignored' as const;
    // A named recording is final: a later (retried or reordered) absent/failed does not erase it.
    if ((row.recording_ref as { reference_id?: unknown } | null)?.reference_id && !ref?.reference_id) return 'ignored' as const;
    await setRecordingRef(tx, row.id, ref);
    return 'applied' as const;
  });
}
