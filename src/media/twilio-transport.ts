import type { WebSocket } from 'uWebSockets.js';
import { buildClearMessage, buildMarkMessage } from '../carriers/twilio/media-stream-protocol.js';
import { CarrierTransport, type CarrierSocketData } from './carrier-transport.js';

// A Twilio Media Stream as a call's transport (the μ-law framing, clear and mark logic is
// CarrierTransport's). Every message Twilio takes names the stream by its streamSid.

export { TURN_COMPLETE_MARK } from './carrier-transport.js';
export type TwilioSocketData = CarrierSocketData;

export class TwilioTransport extends CarrierTransport {
  constructor(
    ws: WebSocket<TwilioSocketData>,
    readonly streamSid: string,
  ) {
    super(ws, {
      mediaPrefix: `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"`,
      mark: (name) => buildMarkMessage(streamSid, name),
      clear: () => buildClearMessage(streamSid),
    });
  }
}
