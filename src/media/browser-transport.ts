import type { WebSocket } from 'uWebSockets.js';
import { controlFrameJson, InputErrorFrames, MAX_AUDIO_MESSAGE_BYTES, MAX_SOCKET_MESSAGE_BYTES, type ControlFrame } from '../contract/control-frames.js';
import { OpusCodec } from '../audio/opus-codec.js';
import { MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON, type MessageRateBucket, type MessageRatePolicy } from './message-rate.js';
import type { MediaTransport } from './transport.js';
import type { VoiceSession } from './voice-session.js';

interface Log {
  warn: (o: object, m: string) => void;
}

/**
 * Over the message rate: one `error` frame, then close 1008. uWS runs the close callback
 * inside `end`, so a running call ends there (a drop: `completed` / `caller_hangup`, settled
 * once) and no later message of this socket reaches it.
 */
export function closeOverRate(ws: WebSocket<unknown>, rate: MessageRatePolicy, log: Log, sessionId: string): void {
  log.warn({ session_id: sessionId, max_per_second: rate.perSecond, burst: rate.burst }, 'media socket over its message rate limit: closed with 1008');
  ws.send(controlFrameJson(rate.errorFrame), false);
  ws.end(MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON);
}

/**
 * The media socket of spec 4.7 / contract §9: binary PCM16LE (or single Opus packets with
 * `encoding: "opus"`) both ways, JSON control frames as text.
 */
export class BrowserTransport implements MediaTransport {
  private readonly opus: OpusCodec | null;

  constructor(
    private readonly ws: WebSocket<unknown>,
    private readonly session: VoiceSession,
    encoding: string,
    rateIn: number,
    rateOut: number,
    /** Every message the client sends counts against it, from the socket's open (MEDIA_MAX_MESSAGES_PER_SECOND, MEDIA_MESSAGE_BURST). */
    private readonly bucket: MessageRateBucket,
    private readonly log: Log,
  ) {
    this.opus = encoding === 'opus' ? new OpusCodec(rateIn, rateOut) : null;
  }

  /** A message from the client; never throws. */
  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.session.ending) return;
    if (!this.bucket.take()) return closeOverRate(this.ws, this.bucket.policy, this.log, this.session.id);
    this.handle(message, isBinary);
  }

  /** A message that came while the session activated, already counted against the rate. */
  replay(message: ArrayBuffer, isBinary: boolean): void {
    if (!this.session.ending) this.handle(message, isBinary);
  }

  private handle(message: ArrayBuffer, isBinary: boolean): void {
    if (message.byteLength > MAX_SOCKET_MESSAGE_BYTES) return this.session.onTooBig();
    if (!isBinary) return this.onControl(message);
    if (this.opus) {
      let pcm: Buffer;
      try {
        pcm = this.opus.decode(message);
      } catch {
        return this.session.sendInputError(InputErrorFrames.badOpus);
      }
      return this.session.onAudio(pcm);
    }
    const bytes = message.byteLength;
    if (bytes > MAX_AUDIO_MESSAGE_BYTES) return this.session.sendInputError(InputErrorFrames.tooLarge);
    if (bytes & 1) return this.session.sendInputError(InputErrorFrames.oddLength);
    this.session.onAudio(message);
  }

  private onControl(message: ArrayBuffer): void {
    let frame: unknown;
    try {
      frame = JSON.parse(Buffer.from(message).toString('utf8'));
    } catch {
      frame = null;
    }
    if (frame && typeof frame === 'object' && (frame as { type?: unknown }).type === 'stop') return this.session.onStop();
    this.session.sendInputError(InputErrorFrames.badControl);
  }

  sendAudio(frame: Uint8Array): void {
    if (this.opus) this.ws.send(this.opus.encode(frame), true);
    else this.ws.send(frame, true);
  }

  sendControl(frame: ControlFrame): void {
    this.ws.send(controlFrameJson(frame), false);
  }

  clearPlayback(): void {
    // The `interrupted` control frame tells the client to drop its queue.
  }

  bufferedBytes(): number {
    return this.ws.getBufferedAmount();
  }

  cork(fn: () => void): void {
    this.ws.cork(fn);
  }

  close(code: number, reason: string): void {
    this.ws.end(code, reason);
  }
}
