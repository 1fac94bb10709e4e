import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { EndReason, EndSignal } from '../sessions/settlement.js';
import type { TranscriptEntry } from '../contract/events.js';
import { CloseCode } from '../sessions/lifecycle.js';
import type { CallHost, CallPipeline } from './call-pipeline.js';
import { InputErrorFrames, type ControlFrame } from '../contract/control-frames.js';
import { NativeError, type PcmMessage } from '../audio/native.js';
import { FRAME_MS } from './output-queue.js';
import { PACE_LEAD_MS, PACER_TICK_MS, type Paced } from './pacer.js';
import type { MediaTransport } from './transport.js';
import { countBargeIn, JITTER_PAUSE_MS, outputJitter } from '../metrics/media.js';

/** Above this many bytes waiting in the socket, the pacer holds frames back (backpressure). */
export const MAX_BUFFERED_BYTES = 64 * 1024;
/**
 * The lead allowed to a send from the caller's message callback: one pacer tick more than the
 * timer's, so a frame the next tick would send anyway leaves now, in the callback's cork, with
 * the TCP ACK of the caller's audio, instead of a tick later in a write of its own.
 */
const CALLBACK_LEAD_MS = PACE_LEAD_MS + PACER_TICK_MS;

export interface SessionHooks {
  /** Called once, after the transport closed, with how the call ended and its transcript. */
  ended(session: VoiceSession, signal: EndSignal, transcript: TranscriptEntry[]): void;
  /** Output is available now: run this session's pacing at once. */
  kick(session: VoiceSession): void;
  /** A frame is held back (lead or backpressure) until `atMs`: the pacer must visit this session then. */
  waiting(session: VoiceSession, atMs: number): void;
  /** Caller audio arrived at `nowMs`: the pacer's tick runs if it is due (timers can starve under socket load). */
  poke(nowMs: number): void;
  /** How much of [fromMs, toMs] this process spent in an event-loop stall that just ended (Pacer.stalledMs). */
  stalledMs(fromMs: number, toMs: number): number;
}

interface Log {
  warn: (o: object, m: string) => void;
}

/** What a running call reads of its session row. */
export type CallRow = Pick<SessionRow, 'id' | 'project_id' | 'direction' | 'encoding' | 'sample_rate_in' | 'sample_rate_out' | 'max_duration_seconds'>;

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
  /** Silence the far end played because this process stalled, not yet told to the pipeline. */
  private stallSilenceMs = 0;
  readonly deadlineMs: number;
  /** The pacer's bookkeeping (Paced). */
  pacerTick = -1;
  private endSignal: EndSignal | null = null;
  private closed = false;
  framesIn = 0;
  framesOut = 0;
  /** `interrupted` frames sent: the caller spoke over the agent (call log, metrics). */
  bargeIns = 0;
  /** When the last output frame left (monotonic ms), for the output-jitter metric. */
  private lastSentMs = -Infinity;
  /** `now` of the send corked by pace(), for `flush`. */
  private pacingNowMs = 0;
  private readonly host: CallHost;
  /**
   * Only the fields the call reads: the whole row (agent pipeline snapshot, variables,
   * timestamps) was ≈ 3 KiB of heap per call, kept for the call's whole length.
   */
  readonly row: CallRow;

  constructor(
    row: CallRow,
    private readonly startedAtMs: number,
    private readonly pipeline: CallPipeline,
    private readonly hooks: SessionHooks,
    private readonly log: Log,
    private readonly now: () => number,
  ) {
    const { id, project_id, direction, encoding, sample_rate_in, sample_rate_out, max_duration_seconds } = row;
    this.row = { id, project_id, direction, encoding, sample_rate_in, sample_rate_out, max_duration_seconds };
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

  get direction(): string {
    return this.row.direction;
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
        this.sendInputError(err.code.includes('ODD') ? InputErrorFrames.oddLength : InputErrorFrames.tooLarge);
        return;
      }
      this.log.warn({ err, session_id: this.id }, 'media message failed');
      this.end('failed', 'service_error', 1011);
      return;
    }
    // Output that is due goes out now, in this callback's cork, rather than at the next tick:
    // the shared timer only picks up what the lead held back.
    const nowMs = this.now();
    const at = this.sendDue(nowMs);
    if (at >= 0) this.hooks.waiting(this, at);
    this.hooks.poke(nowMs);
  }

  /** The audio just handed over had queued while the call was set up (see CallPipeline.backlogPushed). */
  backlogPushed(): void {
    if (!this.ending) this.pipeline.backlogPushed?.();
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

  /** A recoverable problem with what the caller sent (an `error` frame); the call goes on. */
  sendInputError(frame: ControlFrame): void {
    if (this.transport && !this.closed) this.transport.sendControl(frame);
  }

  private sendControl(frame: ControlFrame): void {
    if (frame.type === 'interrupted') this.countBargeIn();
    if (this.transport && !this.ending) this.transport.sendControl(frame);
  }

  private clearPlayback(): void {
    // The far end drops its queue; our playhead is back at real time.
    this.playheadMs = this.now();
    if (this.transport && !this.ending) this.transport.clearPlayback();
  }

  /**
   * Pacer visit (and kick): max duration, then the frames due. Returns when the next frame is
   * due (ms; `nowMs` when backpressure holds it), or -1 when none waits.
   */
  pace(nowMs: number): number {
    if (this.closed || !this.transport) return -1;
    if (nowMs >= this.deadlineMs && !this.endSignal) {
      this.end('completed', 'max_duration', CloseCode.normal);
      return -1;
    }
    if (this.endSignal) return -1;
    if (!this.due(nowMs, PACE_LEAD_MS) || !this.pipeline.nextFrame()) return this.nextDue(nowMs);
    try {
      // One frame due (the usual visit: the lead allows one more): a single send is one write
      // without ws.cork(fn) and its C++ -> JS callback. Several are corked into one write.
      if (this.playheadMs + 2 * FRAME_MS > nowMs + PACE_LEAD_MS) this.send(nowMs, PACE_LEAD_MS);
      else {
        this.pacingNowMs = nowMs;
        this.transport.cork(this.flush);
      }
    } catch (err) {
      this.log.warn({ err, session_id: this.id }, 'media send failed');
    }
    return this.nextDue(nowMs);
  }

  /** Sends what is due without corking (the caller's socket callback already corks). Returns as pace() does. */
  private sendDue(nowMs: number): number {
    if (this.ending || !this.transport) return -1;
    if (this.due(nowMs, CALLBACK_LEAD_MS)) {
      try {
        this.send(nowMs, CALLBACK_LEAD_MS);
      } catch (err) {
        this.log.warn({ err, session_id: this.id }, 'media send failed');
      }
    }
    return this.nextDue(nowMs);
  }

  /** Whether a frame may leave at `nowMs` (the lead allows it); moves an idle playhead up to now. */
  private due(nowMs: number, leadMs: number): boolean {
    this.stallSilenceMs = 0;
    if (this.playheadMs < nowMs) {
      // The far end ran dry at the playhead. The part a stall of this process caused is
      // silence the caller heard while their audio queued unread; the pipeline's echo
      // reference must hold it before the next frame, or that backlog is matched against it.
      this.stallSilenceMs = this.hooks.stalledMs(this.playheadMs, nowMs);
      this.playheadMs = nowMs;
    }
    return this.playheadMs + FRAME_MS <= nowMs + leadMs;
  }

  /** When the next waiting frame may leave (`nowMs` if only backpressure holds it), or -1 when none waits. */
  private nextDue(nowMs: number): number {
    if (this.ending || !this.transport || !this.pipeline.nextFrame()) return -1;
    return Math.max(nowMs, this.playheadMs + FRAME_MS - PACE_LEAD_MS);
  }

  private readonly flush = (): void => this.send(this.pacingNowMs, PACE_LEAD_MS);

  private send(nowMs: number, leadMs: number): void {
    const transport = this.transport!;
    const limit = nowMs + leadMs;
    while (this.playheadMs + FRAME_MS <= limit) {
      const frame = this.pipeline.nextFrame();
      if (!frame) return;
      if (transport.bufferedBytes() > MAX_BUFFERED_BYTES) return; // backpressure: frames wait (or drop when the ring fills)
      if (this.stallSilenceMs > 0) {
        this.pipeline.underrun?.(this.stallSilenceMs);
        this.stallSilenceMs = 0;
      }
      transport.sendAudio(frame);
      this.pipeline.frameSent();
      this.framesOut++;
      this.observeJitter(nowMs);
      this.playheadMs += FRAME_MS;
    }
  }

  /** Output jitter (metrics): |interval − 20 ms| since the previous frame, unless output had paused. */
  private observeJitter(nowMs: number): void {
    const gapMs = nowMs - this.lastSentMs;
    this.lastSentMs = nowMs;
    if (gapMs < JITTER_PAUSE_MS) outputJitter.observe(Math.abs(gapMs - FRAME_MS));
  }

  private countBargeIn(): void {
    this.bargeIns++;
    countBargeIn(this.row.direction);
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
