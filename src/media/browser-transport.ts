import type { WebSocket } from 'uWebSockets.js';
import { controlFrameJson, InputErrorFrames, MAX_AUDIO_MESSAGE_BYTES, MAX_SOCKET_MESSAGE_BYTES, type ControlFrame } from '../contract/control-frames.js';
import { OpusCodec } from '../audio/opus-codec.js';
import type { MediaTransport } from './transport.js';
import type { VoiceSession } from './voice-session.js';

/** What uWS keeps per socket: only pointers to our objects, cleared on close. */
export interface BrowserSocketData {
  session: VoiceSession | null;
  transport: BrowserTransport | null;
  refusal: { code: number; reason: string } | null;
}

/**
 * The media socket of spec 4.7 / contract §9: binary PCM16LE (or single Opus packets with
 * `encoding: "opus"`) both ways, JSON control frames as text.
 */
export class BrowserTransport implements MediaTransport {
  private readonly opus: OpusCodec | null;

  constructor(private readonly ws: WebSocket<BrowserSocketData>, private readonly session: VoiceSession, encoding: string, rateIn: number, rateOut: number) {
    this.opus = encoding === 'opus' ? new OpusCodec(rateIn, rateOut) : null;
  }

  /** A message from the client; never throws. */
  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.session.ending) return;
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
