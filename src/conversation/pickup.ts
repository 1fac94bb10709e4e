import type { AgentTurn } from './agent-audio.js';

// The callee of an outbound call answers the phone with "hello?", usually just as the greeting
// starts. That word is not a barge-in: speech this short at the very start of the greeting is
// let by, while longer speech there interrupts as anywhere else. The greeting still stops at the
// onset (`clear`, so a phone does not play on for the ~700 ms it has queued), its unplayed rest
// kept; after a pickup word it resumes from what the callee heard, unannounced. Both engines
// judge it on the echo-aware detector, which the greeting's own echo does not fool, so no
// transcript is needed.

/** Speech that starts this early in an outbound greeting may be the callee's pickup word. */
export const PICKUP_WINDOW_MS = 1000;
/** About one word ("hello?"): speech up to this long in the window is a pickup, not an interruption. */
export const PICKUP_MAX_SPEECH_MS = 700;
/**
 * The detector reports the end of the caller's speech after this much quiet (the native
 * BargeInOptions.gapMs default), so a word is over only that long after its last sound.
 */
const DETECTOR_END_DELAY_MS = 120;
/** A pickup judgement is over at most this long after the caller's speech began. */
export const PICKUP_JUDGED_WITHIN_MS = PICKUP_MAX_SPEECH_MS + DETECTOR_END_DELAY_MS;

export interface PickupOptions {
  /** The session is an outbound phone call (direction `outbound`). */
  outbound: boolean;
  /** The detector's minDurationMs: the caller had been speaking this long when it fired. */
  detectorDelayMs: number;
  /** The caller is still speaking past PICKUP_MAX_SPEECH_MS: interrupt after all (`onsetMs`: the barge-in's). */
  tooLong(onsetMs: number): void;
}

/** Judges a barge-in at the start of an outbound greeting: a pickup word, or an interruption. */
export class PickupWord {
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly o: PickupOptions) {}

  /** A barge-in is being judged: nothing else is decided about it until `ended` or `tooLong`. */
  get judging(): boolean {
    return this.timer !== null;
  }

  /** A barge-in at `now` (monotonic ms) over `turn`: true when it may be a pickup word, judged from here. */
  begin(turn: AgentTurn, now: number): boolean {
    if (!this.o.outbound || turn.kind !== 'greeting' || turn.firstFrameAt === null || this.timer) return false;
    const speechStartedAt = now - this.o.detectorDelayMs;
    if (speechStartedAt - turn.firstFrameAt > PICKUP_WINDOW_MS) return false;
    const decideInMs = PICKUP_JUDGED_WITHIN_MS - this.o.detectorDelayMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.o.tooLong(now);
    }, Math.max(0, decideInMs));
    return true;
  }

  /** The detector heard the caller stop (interruptionEnd): a pickup word in time, the greeting goes on. */
  ended(): void {
    this.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
