import type { AppContext } from '../shared/app-context.js';
import { openTelnyxClient } from '../carriers/accounts.js';
import { CarrierRestError } from '../carriers/rest-error.js';
import { decodeClientState, encodeClientState } from '../carriers/telnyx/media-stream-protocol.js';
import { REFUSALS } from '../carriers/twilio/twiml.js';
import type { RecordingRef } from '../db/repos/carrier-calls.js';
import type { CarrierInfo } from '../db/repos/carriers.js';
import { applyCallStatus, applyRecordingRef, type CallbackResult } from './callbacks.js';
import { admitIncomingCall } from './inbound.js';
import { applyMachineVerdict, telnyxAnsweredBy } from './amd.js';
import { telnyxStreamUrl, telnyxWebhookUrl } from './urls.js';

// Telnyx Call Control webhooks (already signature-checked by the route), JSON
// {data: {event_type, id, occurred_at, payload: {call_control_id, client_state, direction, ...}}}:
//   call.initiated (incoming)   → admission; answered with our media stream, or answered to refuse
//   call.initiated (outgoing), call.answered, call.hangup → the same progress rules as Twilio's
//                                  CallStatus (hangup_cause gives busy / no-answer / failed)
//   call.answered / call.speak.ended of a refusal → speak the sentence, then hang up
//   call.recording.saved / call.recording.error → the session's recording reference
//   call.machine.detection.ended / call.machine.greeting.ended → the answering-machine verdict (amd.ts)
// Anything else is acknowledged and ignored. Our client_state names the session.

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface TelnyxEvent {
  eventType: string;
  payload: Obj;
}

/** The event of a webhook body, or null when it is not one. */
export function parseTelnyxEvent(body: unknown): TelnyxEvent | null {
  const data = isObj(body) && isObj(body.data) ? body.data : null;
  if (!data || typeof data.event_type !== 'string' || !isObj(data.payload)) return null;
  return { eventType: data.event_type, payload: data.payload };
}

/** hangup_cause → the CallStatus word the shared progress rules use. */
const HANGUP_STATUS: Record<string, string> = {
  normal_clearing: 'completed',
  time_limit: 'completed',
  user_busy: 'busy',
  timeout: 'no-answer',
  no_answer: 'no-answer',
  originator_cancel: 'canceled',
  call_rejected: 'failed',
  not_found: 'failed',
  unspecified: 'failed',
};

const SPEECH = { voice: 'female', language: 'en-US' } as const;
const sentenceOf = (refusal: string) => (refusal === 'busy' ? REFUSALS.busy : REFUSALS.unavailable);

export async function handleTelnyxEvent(ctx: AppContext, carrier: CarrierInfo, event: TelnyxEvent): Promise<CallbackResult> {
  const p = event.payload;
  const callControlId = typeof p.call_control_id === 'string' && p.call_control_id.length <= 256 ? p.call_control_id : null;
  if (!callControlId) return 'ignored';
  const state = decodeClientState(typeof p.client_state === 'string' ? p.client_state : null);
  const refusal = state && 'refusal' in state ? state.refusal : null;
  const sessionId = state && 'sessionId' in state && UUID.test(state.sessionId) ? state.sessionId : null;
  const progress = (status: string) => applyCallStatus(ctx, carrier, { sessionId, callSid: callControlId, status });

  switch (event.eventType) {
    case 'call.initiated':
      if (p.direction === 'incoming') return answerIncoming(ctx, carrier, callControlId, p);
      return progress('initiated');
    case 'call.answered':
      if (refusal) return command(ctx, carrier, (c) => c.speak(callControlId, { payload: sentenceOf(refusal), ...SPEECH, client_state: encodeClientState({ refusal }) }));
      return progress('in-progress');
    case 'call.speak.ended':
      return refusal ? command(ctx, carrier, (c) => c.hangup(callControlId)) : 'ignored';
    case 'call.hangup':
      if (refusal) return 'ignored';
      return progress(HANGUP_STATUS[typeof p.hangup_cause === 'string' ? p.hangup_cause : ''] ?? 'failed');
    case 'call.machine.detection.ended':
    case 'call.machine.greeting.ended': {
      const answeredBy = telnyxAnsweredBy(event.eventType, p.result);
      return sessionId && answeredBy ? applyMachineVerdict(ctx, carrier.id, sessionId, callControlId, answeredBy) : 'ignored';
    }
    case 'call.recording.saved':
    case 'call.recording.error':
      return applyRecordingRef(ctx, carrier, { sessionId, callSid: callControlId }, recordingOf(event.eventType, p));
    default:
      return 'ignored';
  }
}

function recordingOf(eventType: string, p: Obj): RecordingRef {
  const urls = isObj(p.recording_urls) ? p.recording_urls : {};
  const url = [urls.wav, urls.mp3].find((u): u is string => typeof u === 'string' && /^https?:\/\/\S{1,2040}$/.test(u)) ?? null;
  if (eventType === 'call.recording.error' || !url) {
    return { provider: 'telnyx', reference_id: null, url: null, fetched_from: 'unavailable', detail: 'The carrier reported that the recording failed.' };
  }
  const id = typeof p.recording_id === 'string' && p.recording_id.length <= 128 ? p.recording_id : null;
  return { provider: 'telnyx', reference_id: id, url, fetched_from: 'carrier' };
}

/** One Call Control command; a failure is logged (the call then ends at Telnyx on its own). */
async function command(ctx: AppContext, carrier: CarrierInfo, run: (c: Awaited<ReturnType<typeof openTelnyxClient>>) => Promise<void>): Promise<CallbackResult> {
  try {
    await run(await openTelnyxClient(ctx, carrier));
    return 'applied';
  } catch (err) {
    if (!(err instanceof CarrierRestError)) throw err;
    ctx.log.warn({ carrier_id: carrier.id, kind: err.kind, http_status: err.httpStatus }, 'telnyx command failed');
    return 'ignored';
  }
}

/**
 * A call to one of the carrier's numbers: answered with our media stream (the session and its
 * token in client_state), or answered with a refusal state so that the caller hears why
 * before we hang up (call.answered → speak, call.speak.ended → hangup).
 */
async function answerIncoming(ctx: AppContext, carrier: CarrierInfo, callControlId: string, p: Obj): Promise<CallbackResult> {
  const admitted = await admitIncomingCall(ctx, carrier, {
    to: typeof p.to === 'string' ? p.to : '',
    from: typeof p.from === 'string' ? p.from : '',
    callSid: callControlId,
  });
  if ('refusal' in admitted) {
    ctx.log.info({ carrier_id: carrier.id, why: admitted.refusal }, 'telnyx inbound call refused');
    const refusal = admitted.sentence === REFUSALS.busy ? 'busy' : 'unavailable';
    return command(ctx, carrier, (c) => c.answer(callControlId, { client_state: encodeClientState({ refusal }) }));
  }
  return command(ctx, carrier, (c) =>
    c.answer(callControlId, {
      client_state: encodeClientState({ sessionId: admitted.sessionId, token: admitted.token }),
      stream_url: telnyxStreamUrl(ctx, admitted.mediaUrl),
      stream_track: 'inbound_track',
      stream_bidirectional_mode: 'rtp',
      stream_bidirectional_codec: 'PCMU',
      webhook_url: telnyxWebhookUrl(ctx, carrier.id),
      webhook_url_method: 'POST',
    }),
  );
}
