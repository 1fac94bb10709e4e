import type { WebSocket } from 'uWebSockets.js';
import { buildTelnyxClear, buildTelnyxMark } from '../carriers/telnyx/media-stream-protocol.js';
import { CarrierTransport, type CarrierSocketData } from './carrier-transport.js';

// A Telnyx media stream (bidirectional RTP mode, PCMU) as a call's transport (the μ-law framing,
// clear and mark logic is CarrierTransport's). Frames go back as
// {"event":"media","media":{"payload":…}} with no stream id: Telnyx knows the socket.

export type TelnyxSocketData = CarrierSocketData;

export class TelnyxTransport extends CarrierTransport {
  constructor(
    ws: WebSocket<TelnyxSocketData>,
    readonly streamId: string,
  ) {
    super(ws, { mediaPrefix: '{"event":"media","media":{"payload":"', mark: buildTelnyxMark, clear: buildTelnyxClear });
  }
}
