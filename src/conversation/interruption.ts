import type { BargeInOptions } from '../audio/native.js';

/**
 * How barge-in behaves (LiveKit-style InterruptionOptions). The native echo-aware detector
 * applies the first group; the engine applies the rest on top of transcripts and playback.
 */
export interface InterruptionOptions {
  /** Barge-in at all (default true). */
  enabled: boolean;
  /**
   * Caller speech above the expected echo needed before the agent stops (default 100 ms). Speech
   * further over the line's noise and the expected echo together counts for more of it: from 18 dB
   * over, 60% of it stops the agent (a short loud first vowel). Once the line has been heard alone
   * for 1 s on a call without an echo path, speech with little echo expected needs 85% of it.
   */
  minDurationMs: number;
  /** Caller-speech probability threshold (default 0.5). */
  threshold: number;
  /** Longest echo path handled, pacing lead included (default 600 ms). */
  maxEchoDelayMs: number;
  /** Words the caller must have said for a barge-in to stand (default 0: speech alone is enough). */
  minWords: number;
  /**
   * With the agent's `backchannel` on, an interruption first pauses the answer; when the
   * caller's speech turns out to be a short backchannel ("mm-hm", "yeah") within this time,
   * the answer resumes where it stopped (default 1500 ms).
   */
  falseInterruptionTimeoutMs: number;
  /** Longest caller speech still taken as a backchannel (default 800 ms). */
  backchannelMaxMs: number;
}

export const DEFAULT_INTERRUPTION: InterruptionOptions = {
  enabled: true,
  minDurationMs: 100,
  threshold: 0.5,
  maxEchoDelayMs: 600,
  minWords: 0,
  falseInterruptionTimeoutMs: 1500,
  backchannelMaxMs: 800,
};

export function nativeBargeIn(o: InterruptionOptions): BargeInOptions {
  return { minDurationMs: o.minDurationMs, threshold: o.threshold, maxEchoDelayMs: o.maxEchoDelayMs };
}
