import { randomBytes, randomUUID } from 'node:crypto';
import type WebSocket from 'ws';
import { FakeCarrierStream, FRAME_MS, openCarrierSocket, type FakeCarrierStreamOptions } from '../carrier-media-client.js';

// The Telnyx side of a bidirectional media stream (Call Control stream_url, RTP mode, PCMU),
// for driving our media socket as a phone call would (line pacing, mark echoes and the record of
// what the server sends are FakeCarrierStream's). It speaks the documented frames:
// `connected` {version}, `start` {sequence_number, stream_id, start: {user_id, call_control_id,
// call_session_id, from, to, tags, client_state, custom_parameters, media_format {PCMU, 8000,
// 1}}}, `media` {media: {track, chunk, timestamp, payload}} of 20 ms, `dtmf` {dtmf: {digit}},
// `mark` echoes and `stop` {stop: {user_id, call_control_id}}. Numbers go as decimal strings.

export { FRAME_BYTES, FRAME_MS, type ReceivedMessage } from '../carrier-media-client.js';

export interface FakeStreamOptions extends FakeCarrierStreamOptions {
  userId?: string;
  callControlId?: string;
  streamId?: string;
  clientState?: string | null;
  from?: string;
  to?: string;
  encoding?: string;
}

export class FakeTelnyxStream extends FakeCarrierStream {
  readonly userId: string;
  readonly callControlId: string;
  readonly streamId: string;

  private constructor(
    ws: WebSocket,
    private readonly opts: FakeStreamOptions,
  ) {
    super(ws, opts.echoMarks !== false, 'fake telnyx stream');
    this.userId = opts.userId ?? randomUUID();
    this.callControlId = opts.callControlId ?? `v3:${randomBytes(27).toString('base64url')}`;
    this.streamId = opts.streamId ?? randomUUID().toUpperCase();
  }

  static async connect(url: string, opts: FakeStreamOptions = {}): Promise<FakeTelnyxStream> {
    return new FakeTelnyxStream(await openCarrierSocket(url, opts.headers), opts);
  }

  protected markEcho(name: string): unknown {
    return { event: 'mark', sequence_number: this.nextSeq(), stream_id: this.streamId, mark: { name } };
  }

  sendConnected(): void {
    this.sendJson({ event: 'connected', version: '1.0.0' });
  }

  sendStart(): void {
    this.startedAt = Date.now();
    this.sendJson({
      event: 'start',
      sequence_number: this.nextSeq(),
      stream_id: this.streamId,
      start: {
        user_id: this.userId,
        call_control_id: this.callControlId,
        call_session_id: randomUUID(),
        from: this.opts.from ?? '+13122010094',
        to: this.opts.to ?? '+13122123456',
        tags: [],
        client_state: this.opts.clientState ?? null,
        custom_parameters: {},
        media_format: { encoding: this.opts.encoding ?? 'PCMU', sample_rate: 8000, channels: 1 },
      },
    });
  }

  sendMediaFrame(mulaw: Buffer): void {
    const chunk = this.nextChunk();
    this.sendJson({
      event: 'media',
      sequence_number: this.nextSeq(),
      media: { track: 'inbound', chunk: String(chunk), timestamp: String((chunk - 1) * FRAME_MS), payload: mulaw.toString('base64') },
      stream_id: this.streamId,
    });
  }

  sendDtmf(digit: string): void {
    this.sendJson({ event: 'dtmf', stream_id: this.streamId, occurred_at: new Date().toISOString(), sequence_number: this.nextSeq(), dtmf: { digit } });
  }

  sendStop(): void {
    this.sendJson({ event: 'stop', sequence_number: this.nextSeq(), stop: { user_id: this.userId, call_control_id: this.callControlId }, stream_id: this.streamId });
  }
}
