import type uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import type { CallStarter } from './call-registry.js';
import { TELNYX_STREAM_PATH } from '../telephony/urls.js';
import { TelnyxTransport } from './telnyx-transport.js';
import { carrierStreamRoute } from './carrier-stream-route.js';
import {
  decodeClientState,
  MAX_MESSAGE_BYTES,
  parseTelnyxInbound,
  PCMU,
  PCMU_SAMPLE_RATE_HZ,
  type TelnyxStart,
} from '../carriers/telnyx/media-stream-protocol.js';

// The media socket Telnyx connects to for a call's `stream_url` (`/v2/carriers/telnyx/stream`);
// the socket lifecycle is carrierStreamRoute's. The `start` frame's client_state (set by our dial
// or answer command) carries the session id and the single-use token, and its call_control_id
// must be the session's call. An `error` frame from Telnyx is logged.

/** The route, for `startMediaServer(ctx, { routes: [telnyxStreamRoute(ctx, nodeId)] })` (nodeId: the media server's). */
export function telnyxStreamRoute(ctx: AppContext, nodeId: string): (app: uWS.TemplatedApp, calls: CallStarter) => void {
  return carrierStreamRoute<TelnyxStart, TelnyxTransport>(ctx, nodeId, {
    carrier: 'telnyx',
    path: TELNYX_STREAM_PATH,
    maxMessageBytes: MAX_MESSAGE_BYTES,
    parse: parseTelnyxInbound,
    isCallerTrack: (track) => track === 'inbound' || track === 'inbound_track',
    claim: (m) => {
      const f = m.mediaFormat;
      if (f.encoding !== PCMU || f.sampleRate !== PCMU_SAMPLE_RATE_HZ || f.channels !== 1) {
        return { ok: false, code: 1003, reason: 'media format must be PCMU 8000 Hz mono' };
      }
      const claim = decodeClientState(m.clientState);
      if (!claim || !('sessionId' in claim)) return { ok: false, code: 4401, reason: 'no session in client_state' };
      return { ok: true, start: { kind: 'telnyx', sessionId: claim.sessionId, token: claim.token, accountSid: '', callSid: m.callControlId } };
    },
    openTransport: (ws, m) => new TelnyxTransport(ws, m.streamId),
    streamLogFields: (transport) => ({ stream_id: transport?.streamId ?? null }),
  });
}
