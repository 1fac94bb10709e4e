import type { AppContext } from '../shared/app-context.js';
import { ensureTelnyxApplication, openCarrierClient, openTelnyxClient } from '../carriers/accounts.js';
import { CarrierRestError } from '../carriers/rest-error.js';
import { encodeClientState } from '../carriers/telnyx/media-stream-protocol.js';
import { TwilioRestError } from '../carriers/twilio/rest-client.js';
import { connectStreamTwiml } from '../carriers/twilio/twiml.js';
import { claimDial, getCarrierCall, recordDialed, recordDialError, releaseDial, type CarrierCallRow, type RecordingRef } from '../db/repos/carrier-calls.js';
import { findLiveCarrier, type CarrierInfo, type CarrierKind } from '../db/repos/carriers.js';
import { getAgentAsRun } from '../db/repos/agent-versions.js';
import { TELNYX_AMD_MODE, TWILIO_AMD_MODE } from './amd.js';
import { getProjectCallLimits } from '../db/repos/projects.js';
import { endSession } from '../sessions/settlement.js';
import { mediaTargetFor } from '../sessions/media-nodes.js';
import { AppError } from '../shared/errors.js';
import { CREATED_SLOT_MARGIN_MS, takeSlot } from '../sessions/slots.js';
import { randomToken, sha256Hex } from '../shared/crypto/tokens.js';
import { DIALED_TOKEN_TTL_SECONDS, RING_TIMEOUT_SECONDS, TIME_LIMIT_MARGIN_SECONDS } from './timing.js';
import { amdCallbackUrl, recordingCallbackUrl, statusCallbackUrl, streamUrl, telnyxStreamUrl, telnyxWebhookUrl } from './urls.js';

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
/** The carrier was asked to record; the reference comes with its recording callback. */
export const pendingRecording = (provider: CarrierKind = 'twilio'): RecordingRef => ({ ...PENDING_RECORDING, provider });
export const unavailableRecording = (detail: string, provider: CarrierKind = 'twilio'): RecordingRef => ({
  provider,
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
async function fail(ctx: AppContext, row: CarrierCallRow, detail: string, log: Record<string, unknown> = {}, provider: CarrierKind = 'twilio'): Promise<DialOutcome> {
  await recordDialError(ctx.sql, row.id, detail, row.record ? unavailableRecording(NOT_PLACED_RECORDING_DETAIL, provider) : null);
  await endSession(ctx, row.id, { outcome: 'failed', endReason: 'carrier_error' });
  ctx.log.warn({ session_id: row.id, ...log }, 'outbound call not placed');
  return { kind: 'failed', detail };
}

const carrierFields = (err: CarrierRestError) => ({
  carrier_error: err.kind,
  http_status: err.httpStatus,
  ...(err instanceof TwilioRestError ? { twilio_code: err.twilioCode } : {}),
});

type Dialer = () => Promise<{ sid: string }>;

/** Twilio: Calls.json with TwiML that connects the answered call to our media socket. */
async function twilioDialer(ctx: AppContext, row: CarrierCallRow, carrier: CarrierInfo, token: string, mediaUrl: string, timeoutMs?: number): Promise<Dialer> {
  const client = await openCarrierClient(ctx, carrier, { timeoutMs });
  // An agent with a voicemail setting wants to know whether a machine answered (telephony/amd.ts).
  const agent = row.agent_id ? await getAgentAsRun(ctx.sql, row.agent_id, row.agent_version) : undefined;
  const machineDetection = agent?.voicemail ? { mode: TWILIO_AMD_MODE, statusCallback: amdCallbackUrl(ctx, carrier.id, row.id) } : undefined;
  return () =>
    client.createCall({
      from: row.from_e164!,
      to: row.to_e164!,
      twiml: connectStreamTwiml({ url: streamUrl(ctx, mediaUrl), parameters: { session_id: row.id, token } }),
      statusCallback: statusCallbackUrl(ctx, carrier.id, row.id),
      statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
      record: row.record,
      recordingStatusCallback: row.record ? recordingCallbackUrl(ctx, carrier.id, row.id) : undefined,
      recordingStatusCallbackEvent: row.record ? ['completed', 'absent'] : undefined,
      timeoutSeconds: RING_TIMEOUT_SECONDS,
      timeLimitSeconds: row.max_duration_seconds + TIME_LIMIT_MARGIN_SECONDS,
      machineDetection,
    });
}

/** Telnyx: POST /v2/calls on our Call Control application, streaming to our media socket once answered. */
async function telnyxDialer(ctx: AppContext, row: CarrierCallRow, carrier: CarrierInfo, token: string, mediaUrl: string, timeoutMs?: number): Promise<Dialer> {
  const connectionId = await ensureTelnyxApplication(ctx, carrier, telnyxWebhookUrl(ctx, carrier.id));
  const client = await openTelnyxClient(ctx, carrier, { timeoutMs });
  const agent = row.agent_id ? await getAgentAsRun(ctx.sql, row.agent_id, row.agent_version) : undefined;
  return async () => {
    const call = await client.dial({
      connection_id: connectionId,
      to: row.to_e164!,
      from: row.from_e164!,
      client_state: encodeClientState({ sessionId: row.id, token }),
      stream_url: telnyxStreamUrl(ctx, mediaUrl),
      stream_track: 'inbound_track',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      webhook_url: telnyxWebhookUrl(ctx, carrier.id),
      webhook_url_method: 'POST',
      timeout_secs: RING_TIMEOUT_SECONDS,
      time_limit_secs: row.max_duration_seconds + TIME_LIMIT_MARGIN_SECONDS,
      ...(row.record ? { record: 'record-from-answer' as const, record_format: 'wav' as const, record_channels: 'single' as const } : {}),
      ...(agent?.voicemail ? { answering_machine_detection: TELNYX_AMD_MODE } : {}),
    });
    return { sid: call.call_control_id };
  };
}

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
  // The node admission picked, unless it died or drains meanwhile (then another with room).
  let mediaUrl: string;
  try {
    mediaUrl = (await mediaTargetFor(ctx, row, DIALED_TOKEN_TTL_SECONDS * 1000)).url;
  } catch (err) {
    if (err instanceof AppError) return fail(ctx, row, err.detail as string);
    throw err;
  }
  let place: () => Promise<{ sid: string }>;
  try {
    place =
      carrier.kind === 'telnyx' ? await telnyxDialer(ctx, row, carrier, token, mediaUrl, opts.timeoutMs) : await twilioDialer(ctx, row, carrier, token, mediaUrl, opts.timeoutMs);
  } catch (err) {
    // Nothing was asked to call anyone yet (credentials gone, the Telnyx application not made).
    if (err instanceof CarrierRestError) return fail(ctx, row, `carrier connection unavailable: ${err.message}`, carrierFields(err), carrier.kind);
    return fail(ctx, row, 'carrier connection unavailable', {}, carrier.kind);
  }

  try {
    const call = await place();
    await recordDialed(ctx.sql, row.id, call.sid, row.record ? pendingRecording(carrier.kind) : null);
    ctx.log.info({ session_id: row.id, call_sid: call.sid }, 'outbound call placed');
    return { kind: 'dialed', callSid: call.sid };
  } catch (err) {
    if (!(err instanceof CarrierRestError) || err.maybeApplied) {
      // The request may have reached the carrier: never ask again.
      const detail = err instanceof CarrierRestError ? err.message : 'the dial request failed unexpectedly';
      if (!(err instanceof CarrierRestError)) ctx.log.error({ err, session_id: row.id }, 'dial failed unexpectedly');
      await recordDialError(ctx.sql, row.id, `outcome unknown: ${detail}`, null);
      ctx.log.warn({ session_id: row.id, ...(err instanceof CarrierRestError ? carrierFields(err) : {}) }, 'outbound dial outcome unknown');
      return { kind: 'unknown', detail };
    }
    if (err.kind === 'rate_limited' && !opts.lastAttempt) {
      // Twilio refused before creating anything: the dial may be tried again.
      await releaseDial(ctx.sql, row.id, err.message);
      throw new DialRetry(err.message);
    }
    return fail(ctx, row, err.message, carrierFields(err), carrier.kind);
  }
}
