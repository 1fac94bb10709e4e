import type { WebSocket } from 'uWebSockets.js';
import { G711 } from '../../media/native.js';
import type { MediaTransport } from '../../media/transport.js';
import type { VoiceSession } from '../../media/voice-session.js';
import { buildClearMessage, buildMarkMessage, MULAW_SAMPLE_RATE_HZ } from './media-stream-protocol.js';

// A Twilio Media Stream as a call's transport. Caller audio arrives as base64 μ-law 8 kHz in
// JSON `media` messages and is decoded by the native G.711 codec into PCM16 for the session;
// the session's 20 ms PCM16 frames (8 kHz: phone sessions run at 8 kHz both ways) go back as
// μ-law `media` messages. Barge-in becomes `clear` (Twilio drops what it buffered at once), the
// end of an agent turn a `mark`. Twilio has no channel for transcripts, `interrupted` or errors:
// those control frames are not sent.

/** The name of the mark sent when the agent finishes a turn (Twilio echoes it once played). */
export const TURN_COMPLETE_MARK = 'turn_complete';
/** Caller audio decoded without allocating, up to this many samples per message (1 s). */
const DECODE_SAMPLES = MULAW_SAMPLE_RATE_HZ;

export interface TwilioSocketData {
  bridge: { onMessage(message: ArrayBuffer, isBinary: boolean): void; onClose(): void } | null;
}

export class TwilioTransport implements MediaTransport {
  private session: VoiceSession | null = null;
  private closed = false;
  /** `{"event":"media","streamSid":"…","media":{"payload":"` — only the payload changes per frame. */
  private readonly mediaPrefix: string;
  private readonly pcm = new Int16Array(DECODE_SAMPLES);
  private readonly pcmBytes: Uint8Array[] = [];
  private law = new Uint8Array(MULAW_SAMPLE_RATE_HZ / 50);
  private lawBuffer = Buffer.from(this.law.buffer);
  private readonly frameViews = new WeakMap<Uint8Array, Int16Array>();
  /** Media messages dropped because they were not inbound caller audio at 8 kHz μ-law. */
  droppedMessages = 0;

  constructor(
    private readonly ws: WebSocket<TwilioSocketData>,
    readonly streamSid: string,
  ) {
    this.mediaPrefix = `{"event":"media","streamSid":${JSON.stringify(streamSid)},"media":{"payload":"`;
  }

  /** The call this stream carries; audio before it is attached is dropped. */
  bind(session: VoiceSession): void {
    this.session = session;
  }

  /** One `media` message from Twilio: its decoded μ-law bytes. */
  onCallerAudio(mulaw: Uint8Array): void {
    const session = this.session;
    if (!session || session.ending) return;
    const n = mulaw.length;
    if (n === 0) return;
    if (n > DECODE_SAMPLES) {
      // Larger than Twilio sends (160 bytes per 20 ms): decode into a buffer of its own.
      const pcm = G711.mulawDecode(mulaw);
      session.onAudio(new Uint8Array(pcm.buffer, 0, n * 2));
      return;
    }
    G711.mulawDecode(mulaw, this.pcm.subarray(0, n));
    const view = (this.pcmBytes[n] ??= new Uint8Array(this.pcm.buffer, 0, n * 2));
    session.onAudio(view);
  }

  sendAudio(frame: Uint8Array): void {
    if (this.closed) return;
    const samples = frame.byteLength >> 1;
    let pcm = this.frameViews.get(frame);
    if (!pcm) {
      pcm = frame.byteOffset % 2 === 0
        ? new Int16Array(frame.buffer, frame.byteOffset, samples)
        : new Int16Array(Uint8Array.from(frame).buffer, 0, samples);
      if (frame.byteOffset % 2 === 0) this.frameViews.set(frame, pcm);
    }
    if (this.law.length < samples) {
      this.law = new Uint8Array(samples);
      this.lawBuffer = Buffer.from(this.law.buffer);
    }
    G711.mulawEncode(pcm, this.law.subarray(0, samples));
    this.ws.send(`${this.mediaPrefix}${this.lawBuffer.toString('base64', 0, samples)}"}}`, false);
  }

  sendControl(frame: Record<string, unknown>): void {
    if (this.closed) return;
    // session_ended: the close follows; transcript, interrupted, error: no such thing on a phone line.
    if (frame.type === 'turn_complete') this.ws.send(buildMarkMessage(this.streamSid, TURN_COMPLETE_MARK), false);
  }

  clearPlayback(): void {
    if (!this.closed) this.ws.send(buildClearMessage(this.streamSid), false);
  }

  bufferedBytes(): number {
    return this.closed ? 0 : this.ws.getBufferedAmount();
  }

  cork(fn: () => void): void {
    if (this.closed) return fn();
    this.ws.cork(fn);
  }

  close(code: number, reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.ws.end(code, reason);
  }

  /** The socket is gone (uWS close callback): never touch it again. */
  markClosed(): void {
    this.closed = true;
  }
}
