import type uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import type { CallStarter } from './call-registry.js';
import { TWILIO_STREAM_PATH } from '../telephony/urls.js';
import { TwilioTransport } from './twilio-transport.js';
import { carrierStreamRoute } from './carrier-stream-route.js';
import { MAX_MESSAGE_BYTES, MULAW_ENCODING, MULAW_SAMPLE_RATE_HZ, parseInboundMessage, type StartMessage } from '../carriers/twilio/media-stream-protocol.js';

// The media socket Twilio connects to for <Connect><Stream> (`/v2/carriers/twilio/stream`); the
// socket lifecycle is carrierStreamRoute's. Twilio drops query strings, so the `start` message's
// customParameters carry the session id and the single-use token from our TwiML. Twilio's
// protocol has no error message, so a stream over the rate limit is logged and closed with 1008;
// Twilio then ends <Connect><Stream>, and with no verb after it in our TwiML, the phone call.

export { START_TIMEOUT_MS } from './carrier-stream-route.js';

/**
 * The route, for `startMediaServer(ctx, { routes: [twilioStreamRoute(ctx, nodeId)] })`. `nodeId`
 * must be the media server's: it owns the leases of the calls activated here.
 */
export function twilioStreamRoute(ctx: AppContext, nodeId: string): (app: uWS.TemplatedApp, calls: CallStarter) => void {
  return carrierStreamRoute<StartMessage, TwilioTransport>(ctx, nodeId, {
    carrier: 'twilio',
    path: TWILIO_STREAM_PATH,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    parse: parseInboundMessage,
    isCallerTrack: (track) => track === 'inbound',
    claim: (m) => {
      const f = m.mediaFormat;
      if (f.encoding !== MULAW_ENCODING || f.sampleRate !== MULAW_SAMPLE_RATE_HZ || f.channels !== 1) {
        return { ok: false, code: 1003, reason: 'media format must be audio/x-mulaw 8000 Hz mono' };
      }
      const start = {
        sessionId: m.customParameters.session_id ?? '',
        token: m.customParameters.token ?? '',
        accountSid: m.accountSid,
        callSid: m.callSid,
      };
      return { ok: true, start };
    },
    openTransport: (ws, m) => new TwilioTransport(ws, m.streamSid),
    streamLogFields: (transport) => ({ stream_sid: transport?.streamSid ?? null }),
  });
}
