import type { AppContext } from '../shared/app-context.js';
import { connectStreamTwiml, REFUSALS, sayAndHangupTwiml } from '../carriers/twilio/twiml.js';
import { findCarrierCall, reissueToken, setCallParties } from '../db/repos/carrier-calls.js';
import { findCarrierNumber } from '../db/repos/carrier-numbers.js';
import type { CarrierInfo } from '../db/repos/carriers.js';
import { admitCall } from '../sessions/admission.js';
import { randomToken, sha256Hex } from '../shared/crypto/tokens.js';
import { AppError } from '../shared/errors.js';
import { isUniqueViolation } from '../shared/pg-errors.js';
import { PHONE_SAMPLE_RATE_HZ } from './outbound.js';
import { INBOUND_TOKEN_TTL_SECONDS } from './timing.js';
import { streamUrl } from './urls.js';
import { mediaTargetFor } from '../sessions/media-nodes.js';

// The voice webhook of a customer's Twilio number ("A call comes in"). The number's agent takes
// the call through the same admission as every session (direction inbound: agent active,
// providers verified, wallet hold, concurrency slot); the answer is TwiML that connects the call
// to our media socket. Whatever goes wrong, the caller hears a polite sentence and the call ends:
// always 200 text/xml, never an error page read out by Twilio.

const E164 = /^\+[1-9][0-9]{6,14}$/;
const CALL_SID = /^CA[0-9a-fA-F]{32}$/;

export interface InboundAnswer {
  twiml: string;
  /** The session that will take the call, or null when refused. */
  sessionId: string | null;
  /** Why the call was refused (logs and tests). */
  refusal: string | null;
}

const refuse = (why: string, sentence: string = REFUSALS.unavailable): InboundAnswer => ({ twiml: sayAndHangupTwiml(sentence), sessionId: null, refusal: why });
const connect = (ctx: AppContext, sessionId: string, token: string, mediaUrl: string): InboundAnswer => ({
  twiml: connectStreamTwiml({ url: streamUrl(ctx, mediaUrl), parameters: { session_id: sessionId, token } }),
  sessionId,
  refusal: null,
});

/** Twilio's voice webhook: the TwiML that connects the call, or a spoken refusal. */
export async function answerIncomingCall(ctx: AppContext, carrier: CarrierInfo, form: URLSearchParams): Promise<InboundAnswer> {
  const callSid = form.get('CallSid') ?? '';
  if (!CALL_SID.test(callSid)) return refuse('not a call to a phone number');
  const admitted = await admitIncomingCall(ctx, carrier, { to: form.get('To') ?? '', from: form.get('From') ?? '', callSid });
  return 'refusal' in admitted ? refuse(admitted.refusal, admitted.sentence) : connect(ctx, admitted.sessionId, admitted.token, admitted.mediaUrl);
}

/** `mediaUrl`: the media node the call's stream is to reach. */
export type Admission = { sessionId: string; token: string; mediaUrl: string } | { refusal: string; sentence: string };

/**
 * A call to one of the carrier's numbers, whichever carrier: the number's agent takes it through
 * the same admission as every session, or the caller is to hear `sentence` and the call end.
 * A call asked about twice (a retried webhook) gets the same session with a new token.
 */
export async function admitIncomingCall(ctx: AppContext, carrier: CarrierInfo, call: { to: string; from: string; callSid: string }): Promise<Admission> {
  const no = (why: string, sentence: string = REFUSALS.unavailable): Admission => ({ refusal: why, sentence });
  const { to, from, callSid } = call;
  if (!E164.test(to) || !callSid || callSid.length > 256) return no('not a call to a phone number');

  const number = await findCarrierNumber(ctx.sql, carrier.id, to);
  if (!number) return no('number not on this carrier');
  if (!number.agent_id) return no('number has no agent');

  const known = await findCarrierCall(ctx.sql, carrier.id, { callSid });
  if (known) {
    const token = randomToken(32);
    const ok = await reissueToken(ctx.sql, known.id, sha256Hex(token), new Date(ctx.clock.now().getTime() + INBOUND_TOKEN_TTL_SECONDS * 1000));
    if (!ok) return no('call already handled');
    const media = await mediaTargetFor(ctx, known, INBOUND_TOKEN_TTL_SECONDS * 1000).catch(() => null);
    return media ? { sessionId: known.id, token, mediaUrl: media.url } : no('no media node available');
  }

  try {
    const { row, token, media } = await admitCall(ctx, number.project_id, {
      direction: 'inbound',
      agent_id: number.agent_id,
      variables: {},
      sample_rate_in: PHONE_SAMPLE_RATE_HZ,
      sample_rate_out: PHONE_SAMPLE_RATE_HZ,
      encoding: 'pcm16',
      tokenTtlSeconds: INBOUND_TOKEN_TTL_SECONDS,
      finish: (tx, inserted) => setCallParties(tx, inserted.id, { carrierId: carrier.id, fromE164: from.slice(0, 64) || 'unknown', toE164: to, callSid }),
    });
    ctx.log.info({ session_id: row.id, project_id: number.project_id, carrier_id: carrier.id }, 'inbound call admitted');
    return { sessionId: row.id, token, mediaUrl: media.url };
  } catch (err) {
    if (err instanceof AppError) {
      ctx.log.info({ carrier_id: carrier.id, code: err.code }, 'inbound call refused');
      // 429: every line of the project is taken; anything else (agent inactive, providers, wallet, draining).
      return err.status === 429 ? no(err.code, REFUSALS.busy) : no(err.code);
    }
    // The same call admitted concurrently (the carrier asked twice at once): the other answer wins.
    if (isUniqueViolation(err)) return no('call already handled');
    ctx.log.error({ err, carrier_id: carrier.id }, 'inbound call failed');
    return no('internal error');
  }
}
