import type { AppContext } from '../shared/app-context.js';
import { openCarrierClient, openTelnyxClient } from '../carriers/accounts.js';
import { CarrierRestError } from '../carriers/rest-error.js';
import type { TwilioRestClient } from '../carriers/twilio/rest-client.js';
import { conferenceTwiml, dialNumberTwiml } from '../carriers/twilio/twiml.js';
import { getCarrierCall, type CarrierCallRow } from '../db/repos/carrier-calls.js';
import { findLiveCarrier } from '../db/repos/carriers.js';
import { AppError } from '../shared/errors.js';
import { beginHandOver, cancelHandOver, type SessionTransfer } from '../db/repos/session-transfers.js';

// The carrier side of "transfer to a person" (contract §11). The hand-over is recorded on the
// session just before the carrier is asked to move the caller (settlement then bills up to it and
// emits call.transferred, however the media stream ends) and taken back if the carrier refuses.
//
//   cold, Twilio  the caller's call runs <Dial><Number> (call update): our stream ends, they ring the person
//   cold, Telnyx  Call Control `transfer`: Telnyx rings the person and bridges the caller
//   warm, Twilio  the person is called first (Calls.json) with TwiML that speaks the summary and
//                 then joins the conference `transfer-{session}`; the call is watched (GET, every
//                 `pollMs`) until answered, refused or past the ring time (then cancelled). Once
//                 answered, the caller's call is moved into the same conference (call update).
//                 The caller stays with the agent until then, so no answer costs them nothing.
//   warm, Telnyx  not offered yet: the model is told to use a cold transfer.

export interface TransferRequest {
  sessionId: string;
  transfer: SessionTransfer;
  /** Warm: what the person hears before the caller joins. */
  summary: string;
  /** BCP 47 tag for the spoken summary. */
  language: string;
  /** How long the person's phone may ring. */
  ringSeconds: number;
  signal: AbortSignal;
}

export type TransferResult =
  /** The caller is on their way to the person: the session ends `transferred`. */
  | { kind: 'handed_over' }
  /** Warm: the person did not answer (busy, refused, or not within the ring time). The call goes on. */
  | { kind: 'not_answered'; detail: string }
  /** The transfer could not be made; the call goes on. */
  | { kind: 'failed'; detail: string };

export interface TransferOptions {
  /** How often a warm transfer asks the carrier whether the person answered. */
  pollMs?: number;
}

const DEFAULT_POLL_MS = 500;
/** Past the ring time, a leg still not answered is cancelled (the carrier's own timeout normally ends it first). */
const RING_GRACE_MS = 5000;
const NOT_ANSWERED: Record<string, string> = {
  busy: 'the line was busy',
  'no-answer': 'nobody answered',
  failed: 'the call could not be placed',
  canceled: 'the call was cancelled',
  completed: 'the call ended before it was joined',
};

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const failure = (err: unknown): TransferResult => ({ kind: 'failed', detail: err instanceof CarrierRestError ? err.message : 'carrier connection unavailable' });

/** Our own number on the call: shown to the person as the caller ID of an outbound session's transfer. */
const ourNumber = (row: CarrierCallRow) => (row.direction === 'inbound' ? row.to_e164 : row.from_e164);

export async function transferCall(ctx: AppContext, req: TransferRequest, opts: TransferOptions = {}): Promise<TransferResult> {
  const row = await getCarrierCall(ctx.sql, req.sessionId);
  if (!row || row.status !== 'active' || row.settled_at || !row.carrier_id || !row.carrier_call_sid) {
    return { kind: 'failed', detail: 'this call is not a live phone call' };
  }
  const carrier = await findLiveCarrier(ctx.sql, row.carrier_id);
  if (!carrier || carrier.status !== 'verified') return { kind: 'failed', detail: 'carrier connection unavailable' };
  const callId = row.carrier_call_sid;
  const handOver = () => beginHandOver(ctx.sql, row.id, req.transfer, ctx.clock.now());
  try {
    if (carrier.kind === 'telnyx') {
      if (req.transfer.mode === 'warm') return { kind: 'failed', detail: 'warm transfer is not available on this line; use a cold transfer' };
      const client = await openTelnyxClient(ctx, carrier);
      return await moveCaller(ctx, row.id, handOver, () =>
        client.transfer(callId, { to: req.transfer.e164, timeout_secs: req.ringSeconds, ...(row.direction === 'outbound' && row.from_e164 ? { from: row.from_e164 } : {}) }),
      );
    }
    const client = await openCarrierClient(ctx, carrier);
    if (req.transfer.mode === 'cold') {
      const twiml = dialNumberTwiml(req.transfer.e164, { callerId: row.direction === 'outbound' ? (row.from_e164 ?? undefined) : undefined, timeoutSeconds: req.ringSeconds });
      return await moveCaller(ctx, row.id, handOver, () => client.updateCall(callId, { twiml }));
    }
    return await warmTwilio(ctx, client, row, req, handOver, opts.pollMs ?? DEFAULT_POLL_MS);
  } catch (err) {
    if (err instanceof CarrierRestError || err instanceof AppError) return failure(err);
    throw err;
  }
}

/** Records the hand-over, then asks the carrier to move the caller; takes the record back if it refuses. */
async function moveCaller(ctx: AppContext, sessionId: string, handOver: () => Promise<boolean>, move: () => Promise<unknown>): Promise<TransferResult> {
  if (!(await handOver())) return { kind: 'failed', detail: 'the call is over' };
  try {
    await move();
  } catch (err) {
    await cancelHandOver(ctx.sql, sessionId);
    ctx.log.warn({ session_id: sessionId, carrier_error: err instanceof CarrierRestError ? err.kind : 'unknown' }, 'transfer refused by the carrier');
    return failure(err);
  }
  ctx.log.info({ session_id: sessionId }, 'call handed over');
  return { kind: 'handed_over' };
}

async function warmTwilio(
  ctx: AppContext,
  client: TwilioRestClient,
  row: CarrierCallRow,
  req: TransferRequest,
  handOver: () => Promise<boolean>,
  pollMs: number,
): Promise<TransferResult> {
  const from = ourNumber(row);
  if (!from) return { kind: 'failed', detail: 'the call has no number of ours to call from' };
  const room = `transfer-${row.id}`;
  const language = /^[a-z]{2,3}-[A-Z]{2}$/.test(req.language) ? req.language : undefined;
  const leg = await client.createCall({
    from,
    to: req.transfer.e164,
    twiml: conferenceTwiml(room, { say: req.summary, language, startOnEnter: true }),
    timeoutSeconds: req.ringSeconds,
  });
  const end = (status: 'canceled' | 'completed') => client.updateCall(leg.sid, { status }).catch(() => undefined);
  const deadline = Date.now() + req.ringSeconds * 1000 + RING_GRACE_MS;
  let status = leg.status;
  while (status !== 'in-progress') {
    if (NOT_ANSWERED[status]) return { kind: 'not_answered', detail: NOT_ANSWERED[status] };
    if (req.signal.aborted) {
      await end('canceled');
      return { kind: 'failed', detail: 'the transfer was called off' };
    }
    if (Date.now() >= deadline) {
      await end('canceled');
      return { kind: 'not_answered', detail: 'nobody answered' };
    }
    await sleep(pollMs, req.signal);
    if (req.signal.aborted) continue;
    try {
      status = (await client.fetchCall(leg.sid)).status;
    } catch (err) {
      ctx.log.warn({ session_id: row.id, carrier_error: err instanceof CarrierRestError ? err.kind : 'unknown' }, 'transfer leg status unavailable');
    }
  }
  // The person answered and hears the summary: the caller joins them in the conference.
  const moved = await moveCaller(ctx, row.id, handOver, () => client.updateCall(row.carrier_call_sid!, { twiml: conferenceTwiml(room, { startOnEnter: false }) }));
  if (moved.kind !== 'handed_over') await end('completed');
  return moved;
}
