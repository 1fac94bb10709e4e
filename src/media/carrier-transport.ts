import type { WebSocket } from 'uWebSockets.js';
import { G711 } from '../audio/native.js';
import type { ControlFrame } from '../contract/control-frames.js';
import type { MediaTransport } from './transport.js';
import type { VoiceSession } from './voice-session.js';

// What a carrier's media stream (Twilio, Telnyx) does as a call's transport, whatever the
// carrier: caller audio arrives as base64 μ-law 8 kHz in JSON `media` messages and is decoded by
// the native G.711 codec into PCM16 for the session; the session's 20 ms PCM16 frames (8 kHz:
// phone sessions run at 8 kHz both ways) go back as μ-law `media` messages. Barge-in becomes
// `clear` (the carrier drops what it buffered at once), the end of an agent turn a `mark`. Phone
// lines have no channel for transcripts, `interrupted` or errors: those control frames are not
// sent. Each carrier gives only its message shapes (see CarrierMessages).

/** The name of the mark sent when the agent finishes a turn (the carrier echoes it once played). */
export const TURN_COMPLETE_MARK = 'turn_complete';
/** G.711 μ-law on a phone line: 8 kHz, one byte per sample. */
const MULAW_SAMPLE_RATE_HZ = 8000;
/** Caller audio decoded without allocating, up to this many samples per message (1 s). */
const DECODE_SAMPLES = MULAW_SAMPLE_RATE_HZ;
/** What closes a `media` message after its payload. */
const MESSAGE_END = Buffer.from('"}}');
/** Base64 characters for `bytes` bytes (padded). */
const base64Chars = (bytes: number) => 4 * Math.ceil(bytes / 3);

export interface CarrierSocketData {
  stream: { onMessage(message: ArrayBuffer, isBinary: boolean): void; onClose(): void } | null;
}

/** A carrier's outgoing message shapes, for one stream. */
export interface CarrierMessages {
  /** A `media` message up to its payload's opening quote: `{"event":"media",…,"media":{"payload":"`. */
  mediaPrefix: string;
  mark(name: string): string;
  clear(): string;
}

export abstract class CarrierTransport implements MediaTransport {
  private session: VoiceSession | null = null;
  private closed = false;
  /**
   * The outgoing `media` message, built in place: the carrier's prefix stays, the native codec
   * writes the frame's μ-law as base64 after it, then `"}}`.
   */
  private message: Buffer;
  private readonly prefixBytes: number;
  /** `message` cut to the last frame size sent (frames are all 20 ms: made once). */
  private messageView: Buffer;
  private messageChars = -1;
  private readonly pcm = new Int16Array(DECODE_SAMPLES);
  private readonly pcmBytes: Uint8Array[] = [];
  /** Media messages dropped because they were not inbound caller audio. */
  droppedMessages = 0;

  protected constructor(
    private readonly ws: WebSocket<CarrierSocketData>,
    private readonly messages: CarrierMessages,
  ) {
    const prefix = Buffer.from(messages.mediaPrefix);
    this.prefixBytes = prefix.length;
    this.message = Buffer.alloc(this.prefixBytes + base64Chars(MULAW_SAMPLE_RATE_HZ / 50) + MESSAGE_END.length);
    prefix.copy(this.message);
    this.messageView = this.message;
  }

  /** The call this stream carries; audio before it is attached is dropped. */
  bind(session: VoiceSession): void {
    this.session = session;
  }

  /** One `media` message from the carrier: its decoded μ-law bytes. */
  onCallerAudio(mulaw: Uint8Array): void {
    const session = this.session;
    if (!session || session.ending) return;
    const n = mulaw.length;
    if (n === 0) return;
    if (n > DECODE_SAMPLES) {
      // Larger than carriers send (160 bytes per 20 ms): decode into a buffer of its own.
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
    const chars = base64Chars(frame.byteLength >> 1);
    const end = this.prefixBytes + chars;
    if (chars !== this.messageChars) {
      if (this.message.length < end + MESSAGE_END.length) {
        const bigger = Buffer.alloc(end + MESSAGE_END.length);
        this.message.copy(bigger, 0, 0, this.prefixBytes);
        this.message = bigger;
      }
      this.messageView = this.message.subarray(0, end + MESSAGE_END.length);
      this.messageChars = chars;
    }
    G711.mulawBase64(frame, this.message, this.prefixBytes);
    MESSAGE_END.copy(this.message, end);
    this.ws.send(this.messageView, false);
  }

  sendControl(frame: ControlFrame): void {
    if (this.closed) return;
    // session_ended: the close follows; transcript, interrupted, error: no such thing on a phone line.
    if (frame.type === 'turn_complete') this.ws.send(this.messages.mark(TURN_COMPLETE_MARK), false);
  }

  clearPlayback(): void {
    if (!this.closed) this.ws.send(this.messages.clear(), false);
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
