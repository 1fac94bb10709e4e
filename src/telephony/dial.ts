import type { AppContext } from '../shared/app-context.js';
import { openCarrierClient } from '../carriers/accounts.js';
import { TwilioRestError } from '../carriers/twilio/rest-client.js';
import { connectStreamTwiml } from '../carriers/twilio/twiml.js';
import { claimDial, getCarrierCall, recordDialed, recordDialError, releaseDial, type CarrierCallRow, type RecordingRef } from '../db/repos/carrier-calls.js';
import { findLiveCarrier } from '../db/repos/carriers.js';
import { getProjectCallLimits } from '../db/repos/projects.js';
import { endSession } from '../sessions/settlement.js';
import { CREATED_SLOT_MARGIN_MS, takeSlot } from '../sessions/slots.js';
import { randomToken, sha256Hex } from '../shared/crypto/tokens.js';
import { DIALED_TOKEN_TTL_SECONDS, RING_TIMEOUT_SECONDS, TIME_LIMIT_MARGIN_SECONDS } from './timing.js';
import { recordingCallbackUrl, statusCallbackUrl, streamUrl } from './urls.js';

// Places one outbound call through the customer's Twilio account. Never twice: the dial is
// claimed (dial_started_at, committed) before Twilio is asked, and a job that finds a claimed
// dial, a CallSid or a session that moved on does nothing. When Twilio's answer is lost (timeout,
// dropped connection, 5xx) the outcome is unknown: the job does not retry; a status callback
// naming the call, or the telephony sweeper (carrier_error after a grace period), settles it.

export type DialOutcome =
  /** Twilio created the call. */
  | { kind: 'dialed'; callSid: string }
  /** Nothing to do: already dialed, claimed by an earlier attempt, or the session moved on. */
  | { kind: 'skipped'; why: string }
  /** Twilio refused (or could not be asked): the session failed with carrier_error. */
  | { kind: 'failed'; detail: string }
  /** Twilio may or may not have created the call; left to callbacks and the sweeper. */
  | { kind: 'unknown'; detail: string };

/** Thrown for a 429: the claim was given back and BullMQ retries with backoff. */
export class DialRetry extends Error {}

export interface DialOptions {
  /** The last BullMQ attempt: a 429 fails the call instead of retrying. */
  lastAttempt?: boolean;
  timeoutMs?: number;
}

export const PENDING_RECORDING: RecordingRef = { provider: 'twilio', reference_id: null, url: null, fetched_from: 'carrier' };
export const unavailableRecording = (detail: string): RecordingRef => ({
  provider: 'twilio',
  reference_id: null,
  url: null,
  fetched_from: 'unavailable',
  detail,
});

/** Why a recording does not exist when the call itself could not be placed. */
export const NOT_PLACED_RECORDING_DETAIL = 'The call could not be placed, so the carrier was not asked to record it.';

/**
 * The call was not placed: the reason is kept on the row (dial_error; Twilio's message may name
 * the numbers, so it is not logged), the session fails with carrier_error, hold and slot go back.
 */
async function fail(ctx: AppContext, row: CarrierCallRow, detail: string, log: Record<string, unknown> = {}): Promise<DialOutcome> {
  await recordDialError(ctx.sql, row.id, detail, row.record ? unavailableRecording(NOT_PLACED_RECORDING_DETAIL) : null);
  await endSession(ctx, row.id, { outcome: 'failed', endReason: 'carrier_error' });
  ctx.log.warn({ session_id: row.id, ...log }, 'outbound call not placed');
  return { kind: 'failed', detail };
}

const twilioFields = (err: TwilioRestError) => ({ twilio_error: err.kind, http_status: err.httpStatus, twilio_code: err.twilioCode });

export async function processDial(ctx: AppContext, sessionId: string, opts: DialOptions = {}): Promise<DialOutcome> {
  const now = ctx.clock.now();
  const token = randomToken(32);
  const tokenExpiresAt = new Date(now.getTime() + DIALED_TOKEN_TTL_SECONDS * 1000);
  const row = await claimDial(ctx.sql, sessionId, now, sha256Hex(token), tokenExpiresAt);
  if (!row) {
    const current = await getCarrierCall(ctx.sql, sessionId);
    if (!current) return { kind: 'skipped', why: 'no such session' };
    if (current.carrier_call_sid) return { kind: 'skipped', why: 'already dialed' };
    if (current.settled_at || current.status !== 'created') return { kind: 'skipped', why: 'session ended or moved on' };
    if (current.dial_started_at) return { kind: 'skipped', why: 'an earlier attempt started this dial; its outcome is unknown' };
    return { kind: 'skipped', why: 'connect window over' };
  }

  // The created session's slot must outlive the ring (it was sized for the queue window).
  const project = await getProjectCallLimits(ctx.sql, row.project_id);
  const slot = await takeSlot(ctx, row.project_id, row.id, project.max_concurrent_sessions, tokenExpiresAt.getTime() + CREATED_SLOT_MARGIN_MS);
  if (!slot.taken) return fail(ctx, row, 'no concurrency slot was free when the call was to be placed');

  const carrier = row.carrier_id ? await findLiveCarrier(ctx.sql, row.carrier_id) : null;
  if (!carrier || carrier.status !== 'verified') return fail(ctx, row, 'carrier connection unavailable');
  let client;
  try {
    client = await openCarrierClient(ctx, carrier, { timeoutMs: opts.timeoutMs });
  } catch {
    return fail(ctx, row, 'carrier connection unavailable');
  }

  try {
    const call = await client.createCall({
      from: row.from_e164!,
      to: row.to_e164!,
      twiml: connectStreamTwiml({ url: streamUrl(ctx), parameters: { session_id: row.id, token } }),
      statusCallback: statusCallbackUrl(ctx, carrier.id, row.id),
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      record: row.record,
      recordingStatusCallback: row.record ? recordingCallbackUrl(ctx, carrier.id, row.id) : undefined,
      recordingStatusCallbackEvent: row.record ? ['completed', 'absent'] : undefined,
      timeoutSeconds: RING_TIMEOUT_SECONDS,
      timeLimitSeconds: row.max_duration_seconds + TIME_LIMIT_MARGIN_SECONDS,
    });
    await recordDialed(ctx.sql, row.id, call.sid, row.record ? PENDING_RECORDING : null);
    ctx.log.info({ session_id: row.id, call_sid: call.sid }, 'outbound call placed');
    return { kind: 'dialed', callSid: call.sid };
  } catch (err) {
    if (!(err instanceof TwilioRestError) || err.maybeApplied) {
      // The request may have reached Twilio: never ask again.
      const detail = err instanceof TwilioRestError ? err.message : 'the dial request failed unexpectedly';
      if (!(err instanceof TwilioRestError)) ctx.log.error({ err, session_id: row.id }, 'dial failed unexpectedly');
      await recordDialError(ctx.sql, row.id, `outcome unknown: ${detail}`, null);
      ctx.log.warn({ session_id: row.id, ...(err instanceof TwilioRestError ? twilioFields(err) : {}) }, 'outbound dial outcome unknown');
      return { kind: 'unknown', detail };
    }
    if (err.kind === 'rate_limited' && !opts.lastAttempt) {
      // Twilio refused before creating anything: the dial may be tried again.
      await releaseDial(ctx.sql, row.id, err.message);
      throw new DialRetry(err.message);
    }
    return fail(ctx, row, err.message, twilioFields(err));
  }
}
