import { performance } from 'node:perf_hooks';
import type { WebSocket } from 'uWebSockets.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { EndReason, EndSignal } from '../sessions/settlement.js';
import { CloseCode } from '../sessions/lifecycle.js';
import { Frames, MAX_AUDIO_MESSAGE_BYTES, MAX_SOCKET_MESSAGE_BYTES } from './control-frames.js';
import { EchoPipeline } from './echo-pipeline.js';
import { NativeError } from './native.js';
import { OpusCodec } from './opus-codec.js';
import { FRAME_MS, OutputQueue } from './output-queue.js';
import { PACE_LEAD_MS, type Paced } from './pacer.js';

/** What uWS keeps per socket: only a pointer to our session, cleared on close. */
export interface SocketData {
  session: VoiceSession | null;
  refusal: { code: number; reason: string } | null;
}

/** Output waiting beyond this is dropped oldest-first: the client is not reading (backpressure). */
export const OUTPUT_QUEUE_MS = 400;

/** Above this many bytes waiting in the socket, the pacer holds frames back (backpressure). */
export const MAX_BUFFERED_BYTES = 64 * 1024;

export interface SessionHooks {
  /** Called once, after the socket closed, with how the call ended. */
  ended(session: VoiceSession, signal: EndSignal): void;
}

/**
 * One call on this node. It owns every piece of call state; uWS callbacks only forward to
 * it, and none of its socket-facing methods throw.
 */
export class VoiceSession implements Paced {
  readonly id: string;
  readonly projectId: string;
  private ws: WebSocket<SocketData> | null = null;
  private readonly pipeline: EchoPipeline;
  private readonly queue: OutputQueue;
  private readonly opus: OpusCodec | null;
  /** Monotonic ms at which the audio sent so far finishes playing. */
  private playheadMs = 0;
  private readonly endAtMs: number;
  private endSignal: EndSignal | null = null;
  private closed = false;
  framesIn = 0;
  framesOut = 0;
  private pacingNowMs = 0;

  constructor(row: SessionRow, startedAtMs: number, private readonly hooks: SessionHooks, private readonly log: { warn: (o: object, m: string) => void }) {
    this.id = row.id;
    this.projectId = row.project_id;
    this.pipeline = new EchoPipeline(row.sample_rate_in, row.sample_rate_out);
    this.queue = new OutputQueue(row.sample_rate_out, OUTPUT_QUEUE_MS);
    this.opus = row.encoding === 'opus' ? new OpusCodec(row.sample_rate_in, row.sample_rate_out) : null;
    this.endAtMs = startedAtMs + row.max_duration_seconds * 1000;
  }

  attach(ws: WebSocket<SocketData>): void {
    this.ws = ws;
  }

  get droppedFrames(): number {
    return this.queue.droppedFrames;
  }

  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.closed || this.endSignal) return;
    if (message.byteLength > MAX_SOCKET_MESSAGE_BYTES) {
      // Too big for any frame: the caller's client is broken; the call ends as a hang-up.
      this.endSignal = { outcome: 'completed', endReason: 'caller_hangup' };
      this.ws?.end(CloseCode.tooBig, 'message too big');
      return;
    }
    try {
      if (isBinary) this.onAudio(message);
      else this.onControl(message);
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'media message failed');
      this.end('failed', 'service_error', 1011);
    }
  }

  private onAudio(message: ArrayBuffer): void {
    if (this.opus) {
      let pcm: Buffer;
      try {
        pcm = this.opus.decode(message);
      } catch {
        this.sendText(Frames.badOpus);
        return;
      }
      this.framesIn += this.pipeline.push(pcm, this.queue);
      this.pace(performance.now());
      return;
    }
    const bytes = message.byteLength;
    if (bytes > MAX_AUDIO_MESSAGE_BYTES) return this.sendText(Frames.tooLarge);
    if (bytes & 1) return this.sendText(Frames.oddLength);
    try {
      this.framesIn += this.pipeline.push(message, this.queue);
    } catch (err) {
      if (!(err instanceof NativeError)) throw err;
      this.sendText(err.code.includes('ODD') ? Frames.oddLength : Frames.tooLarge);
      return;
    }
    // Output that is due goes out now, inside this callback's cork, rather than at the next
    // tick: the shared timer only picks up what the lead held back.
    this.pace(performance.now());
  }

  private onControl(message: ArrayBuffer): void {
    let frame: unknown;
    try {
      frame = JSON.parse(Buffer.from(message).toString('utf8'));
    } catch {
      frame = null;
    }
    if (frame && typeof frame === 'object' && (frame as { type?: unknown }).type === 'stop') {
      this.end('completed', 'caller_hangup', CloseCode.normal);
      return;
    }
    this.sendText(Frames.badControl);
  }

  /** Pacer tick: max duration, then the frames due, corked into one write. */
  pace(nowMs: number): void {
    if (this.closed || !this.ws) return;
    if (nowMs >= this.endAtMs && !this.endSignal) {
      this.end('completed', 'max_duration', CloseCode.normal);
      return;
    }
    if (this.queue.readyFrames === 0) return;
    if (this.playheadMs < nowMs) this.playheadMs = nowMs;
    if (this.playheadMs + FRAME_MS > nowMs + PACE_LEAD_MS) return;
    this.pacingNowMs = nowMs;
    try {
      this.ws.cork(this.flush);
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'media send failed');
    }
  }

  private readonly flush = (): void => {
    const ws = this.ws!;
    const limit = this.pacingNowMs + PACE_LEAD_MS;
    while (this.playheadMs + FRAME_MS <= limit) {
      if (ws.getBufferedAmount() > MAX_BUFFERED_BYTES) return; // backpressure: frames wait (or drop when the ring fills)
      const frame = this.queue.peek();
      if (!frame) return;
      if (this.opus) ws.send(this.opus.encode(frame), true);
      else ws.send(frame, true);
      this.queue.shift();
      this.framesOut++;
      this.playheadMs += FRAME_MS;
    }
  };

  private sendText(text: string): void {
    if (this.ws && !this.closed) this.ws.send(text, false);
  }

  /**
   * Ends the call from the server side: `session_ended`, then close. The close callback
   * (onClose) reports the end signal exactly once.
   */
  end(outcome: EndSignal['outcome'], endReason: EndReason, closeCode: number): void {
    if (this.closed || this.endSignal) return;
    this.endSignal = { outcome, endReason };
    const ws = this.ws;
    if (!ws) return;
    try {
      ws.cork(() => {
        ws.send(Frames.sessionEnded(endReason), false);
        ws.end(closeCode, endReason);
      });
    } catch {
      this.onClose(); // the socket was already gone
    }
  }

  /** uWS close callback (or a failed end): a drop without stop is a caller hang-up (contract §5). */
  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.ws = null;
    this.queue.clear();
    const signal = this.endSignal ?? { outcome: 'completed', endReason: 'caller_hangup' };
    this.hooks.ended(this, signal);
  }
}
