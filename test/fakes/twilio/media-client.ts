import { randomBytes } from 'node:crypto';
import type WebSocket from 'ws';
import { FakeCarrierStream, FRAME_MS, openCarrierSocket, type FakeCarrierStreamOptions } from '../carrier-media-client.js';

// The Twilio side of a bidirectional Media Stream (<Connect><Stream>), for driving our media
// socket as a phone call would (line pacing, mark echoes and the record of what the server sends
// are FakeCarrierStream's). It speaks the documented protocol: `connected`, then `start` (with
// customParameters and mediaFormat audio/x-mulaw 8000 Hz mono), `media` frames of 20 ms (160
// μ-law bytes, base64), `dtmf`, `mark` echoes and `stop`. Numbers are sent as decimal strings,
// as Twilio does.

export { FRAME_BYTES, FRAME_MS, type ReceivedMessage } from '../carrier-media-client.js';

export interface FakeStreamOptions extends FakeCarrierStreamOptions {
  accountSid?: string;
  callSid?: string;
  streamSid?: string;
  customParameters?: Record<string, string>;
}

const sid = (prefix: string) => `${prefix}${randomBytes(16).toString('hex')}`;

export class FakeMediaStream extends FakeCarrierStream {
  readonly accountSid: string;
  readonly callSid: string;
  readonly streamSid: string;

  private constructor(
    ws: WebSocket,
    private readonly opts: FakeStreamOptions,
  ) {
    super(ws, opts.echoMarks !== false, 'fake media stream');
    this.accountSid = opts.accountSid ?? sid('AC');
    this.callSid = opts.callSid ?? sid('CA');
    this.streamSid = opts.streamSid ?? sid('MZ');
  }

  static async connect(url: string, opts: FakeStreamOptions = {}): Promise<FakeMediaStream> {
    return new FakeMediaStream(await openCarrierSocket(url, opts.headers), opts);
  }

  protected markEcho(name: string): unknown {
    return { event: 'mark', sequenceNumber: this.nextSeq(), streamSid: this.streamSid, mark: { name } };
  }

  sendConnected(): void {
    this.sendJson({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  }

  sendStart(): void {
    this.startedAt = Date.now();
    this.sendJson({
      event: 'start',
      sequenceNumber: this.nextSeq(),
      start: {
        accountSid: this.accountSid,
        streamSid: this.streamSid,
        callSid: this.callSid,
        tracks: ['inbound'],
        customParameters: this.opts.customParameters ?? {},
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
      },
      streamSid: this.streamSid,
    });
  }

  sendMediaFrame(mulaw: Buffer): void {
    const chunk = this.nextChunk();
    this.sendJson({
      event: 'media',
      sequenceNumber: this.nextSeq(),
      media: { track: 'inbound', chunk: String(chunk), timestamp: String((chunk - 1) * FRAME_MS), payload: mulaw.toString('base64') },
      streamSid: this.streamSid,
    });
  }

  sendDtmf(digit: string): void {
    this.sendJson({ event: 'dtmf', streamSid: this.streamSid, sequenceNumber: this.nextSeq(), dtmf: { track: 'inbound_track', digit } });
  }

  sendStop(): void {
    this.sendJson({ event: 'stop', sequenceNumber: this.nextSeq(), stop: { accountSid: this.accountSid, callSid: this.callSid }, streamSid: this.streamSid });
  }
}
