import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { EndReason, EndSignal } from '../sessions/settlement.js';
import type { TranscriptEntry } from '../webhooks/index.js';
import { CloseCode } from '../sessions/lifecycle.js';
import type { CallHost, CallPipeline } from './call-pipeline.js';
import { Frames } from './control-frames.js';
import { NativeError, type PcmMessage } from './native.js';
import { FRAME_MS } from './output-queue.js';
import { PACE_LEAD_MS, type Paced } from './pacer.js';
import type { MediaTransport } from './transport.js';

/** Above this many bytes waiting in the socket, the pacer holds frames back (backpressure). */
export const MAX_BUFFERED_BYTES = 64 * 1024;

export interface SessionHooks {
  /** Called once, after the transport closed, with how the call ended and its transcript. */
  ended(session: VoiceSession, signal: EndSignal, transcript: TranscriptEntry[]): void;
  /** Output is available now: run this session's pacing at once. */
  kick(session: VoiceSession): void;
  /** Frames are held back (lead or backpressure): the pacer must visit this session on its ticks. */
  waiting(session: VoiceSession): void;
  /** Caller audio arrived at `nowMs`: the pacer's tick runs if it is due (timers can starve under socket load). */
  poke(nowMs: number): void;
}

interface Log {
  warn: (o: object, m: string) => void;
}

/**
 * One call on this node, whatever its transport. It owns the call's state: the pipeline that
 * produces audio, the pacing clock and the end of the call. Transport callbacks only forward
 * to it, and none of its transport-facing methods throw.
 */
export class VoiceSession implements Paced {
  readonly id: string;
  readonly projectId: string;
  private transport: MediaTransport | null = null;
  /** Monotonic ms at which the audio sent so far finishes playing. */
  private playheadMs = 0;
  readonly deadlineMs: number;
  private endSignal: EndSignal | null = null;
  private closed = false;
  framesIn = 0;
  framesOut = 0;
  /** `now` of the send corked by pace(), for `flush`. */
  private pacingNowMs = 0;
  private readonly host: CallHost;

  constructor(
    readonly row: SessionRow,
    private readonly startedAtMs: number,
    private readonly pipeline: CallPipeline,
    private readonly hooks: SessionHooks,
    private readonly log: Log,
    private readonly now: () => number,
  ) {
    this.id = row.id;
    this.projectId = row.project_id;
    this.deadlineMs = startedAtMs + row.max_duration_seconds * 1000;
    this.host = {
      sendControl: (frame) => this.sendControl(frame),
      clearPlayback: () => this.clearPlayback(),
      end: (outcome, reason) => this.end(outcome, reason, CloseCode.normal),
      kick: () => this.hooks.kick(this),
      leadMs: () => Math.max(0, this.playheadMs - this.now()),
    };
  }

  /** The transport is open: the call starts (greeting, timers). */
  attach(transport: MediaTransport): void {
    this.transport = transport;
    try {
      this.pipeline.start(this.host);
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'call pipeline failed to start');
      this.end('failed', 'service_error', 1011);
    }
  }

  get droppedFrames(): number {
    return this.pipeline.droppedFrames;
  }

  /** Monotonic ms the call started at (media connect). */
  get startedAt(): number {
    return this.startedAtMs;
  }

  get ending(): boolean {
    return this.closed || this.endSignal !== null;
  }

  /**
   * Caller PCM16LE at sample_rate_in (already decoded by the transport). Transports call it
   * from their socket's message callback, where the socket is already corked (uWS corks
   * around its handlers), so what is due is sent straight away: ws.cork(fn) there would only
   * add a C++ → JS call per message.
   */
  onAudio(pcm: PcmMessage): void {
    if (this.ending) return;
    try {
      this.framesIn += this.pipeline.pushAudio(pcm);
    } catch (err) {
      if (err instanceof NativeError) {
        this.sendText(err.code.includes('ODD') ? Frames.oddLength : Frames.tooLarge);
        return;
      }
      this.log.warn({ err, session_id: this.id }, 'media message failed');
      this.end('failed', 'service_error', 1011);
      return;
    }
    // Output that is due goes out now, in this callback's cork, rather than at the next tick:
    // the shared timer only picks up what the lead held back.
    const nowMs = this.now();
    if (this.sendDue(nowMs)) this.hooks.waiting(this);
    this.hooks.poke(nowMs);
  }

  onDtmf(digit: string): void {
    if (this.ending) return;
    try {
      this.pipeline.onDtmf(digit);
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'dtmf handling failed');
    }
  }

  /** The caller hung up (`{"type":"stop"}` or the carrier's stop). */
  onStop(): void {
    this.end('completed', 'caller_hangup', CloseCode.normal);
  }

  /** A message too big for any frame: the caller's client is broken; ends as a hang-up. */
  onTooBig(): void {
    if (this.ending) return;
    this.endSignal = { outcome: 'completed', endReason: 'caller_hangup' };
    this.transport?.close(CloseCode.tooBig, 'message too big');
  }

  /** A recoverable problem with what the caller sent. */
  sendText(text: string): void {
    if (this.transport && !this.closed) this.transport.sendControl(JSON.parse(text) as Record<string, unknown>);
  }

  private sendControl(frame: Record<string, unknown>): void {
    if (this.transport && !this.ending) this.transport.sendControl(frame);
  }

  private clearPlayback(): void {
    // The far end drops its queue; our playhead is back at real time.
    this.playheadMs = this.now();
    if (this.transport && !this.ending) this.transport.clearPlayback();
  }

  /** Pacer tick (and kick): max duration, then the frames due, corked into one write. Returns whether frames still wait. */
  pace(nowMs: number): boolean {
    if (this.closed || !this.transport) return false;
    if (nowMs >= this.deadlineMs && !this.endSignal) {
      this.end('completed', 'max_duration', CloseCode.normal);
      return false;
    }
    if (this.endSignal) return false;
    if (!this.due(nowMs)) return this.held();
    if (!this.pipeline.nextFrame()) return false;
    this.pacingNowMs = nowMs;
    try {
      this.transport.cork(this.flush);
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'media send failed');
    }
    return this.held();
  }

  /** Sends what is due without corking (the caller's socket callback already corks). Returns whether frames still wait. */
  private sendDue(nowMs: number): boolean {
    if (this.ending || !this.transport) return false;
    if (!this.due(nowMs)) return this.held();
    try {
      this.send(nowMs);
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'media send failed');
    }
    return this.held();
  }

  /** Whether a frame may leave at `nowMs` (the lead allows it); moves an idle playhead up to now. */
  private due(nowMs: number): boolean {
    if (this.playheadMs < nowMs) this.playheadMs = nowMs;
    return this.playheadMs + FRAME_MS <= nowMs + PACE_LEAD_MS;
  }

  /** Frames wait (held back by the lead or backpressure) while the call runs. */
  private held(): boolean {
    return !this.ending && this.transport !== null && this.pipeline.nextFrame() !== null;
  }

  private readonly flush = (): void => this.send(this.pacingNowMs);

  private send(nowMs: number): void {
    const transport = this.transport!;
    const limit = nowMs + PACE_LEAD_MS;
    while (this.playheadMs + FRAME_MS <= limit) {
      const frame = this.pipeline.nextFrame();
      if (!frame) return;
      if (transport.bufferedBytes() > MAX_BUFFERED_BYTES) return; // backpressure: frames wait (or drop when the ring fills)
      transport.sendAudio(frame);
      this.pipeline.frameSent();
      this.framesOut++;
      this.playheadMs += FRAME_MS;
    }
  }

  /**
   * Ends the call from the server side: `session_ended`, then close. The close callback
   * (onClose) reports the end signal exactly once.
   */
  end(outcome: EndSignal['outcome'], endReason: EndReason, closeCode: number): void {
    if (this.ending) return;
    this.endSignal = { outcome, endReason };
    const transport = this.transport;
    if (!transport) return;
    try {
      transport.cork(() => {
        transport.sendControl({ type: 'session_ended', reason: endReason });
        transport.close(closeCode, endReason);
      });
    } catch {
      this.onClose(); // the socket was already gone
    }
  }

  /** Transport closed (or a failed end): a drop without stop is a caller hang-up (contract §5). */
  onClose(): void {
    if (this.closed) return;
    this.closed = true;
    this.transport = null;
    let transcript: TranscriptEntry[] = [];
    try {
      transcript = this.pipeline.stop();
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'call pipeline failed to stop');
    }
    const signal = this.endSignal ?? { outcome: 'completed', endReason: 'caller_hangup' };
    this.hooks.ended(this, signal, transcript);
  }
}
