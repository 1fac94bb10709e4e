// Synthetic voiced stretches for the barge-in tests that need exact levels and timing (a loud
// vowel, a stop, a softer syllable), which espeak-ng callers do not give.
import { interruptionsAt } from './barge-in-run.js';
import { noise, toInt16 } from './corpus.js';

/** A voiced stretch: harmonics of f0 falling 6 dB per octave, 10 ms ramps, peak amplitude `amp`. */
export function vowel(ms: number, f0: number, amp: number, rateHz: number): Float32Array {
  const n = Math.round((ms * rateHz) / 1000);
  const ramp = Math.round(0.01 * rateHz);
  const out = new Float32Array(n);
  let peak = 0;
  for (let i = 0; i < n; i++) {
    let v = 0;
    for (let k = 1; k * f0 < rateHz * 0.45 && k <= 30; k++) v += Math.sin((2 * Math.PI * k * f0 * i) / rateHz) / k;
    out[i] = v * Math.min(1, i / ramp, (n - 1 - i) / ramp);
    peak = Math.max(peak, Math.abs(out[i]));
  }
  for (let i = 0; i < n; i++) out[i] *= amp / peak;
  return out;
}

// Where the caller starts (ms into a 4 s track): whole and odd places in the 20 ms frames.
const OFFSETS_MS = [1000, 1007, 1013, 1019, 2504, 3011];

/**
 * A caller on a quiet line (white noise at about -67 dBFS) with the agent silent: a 40 ms vowel at
 * -14 dBFS (too short to interrupt alone), 30 ms of the line alone (a stop), then 300 ms of a
 * vowel `softDb` under the first. Milliseconds from the caller's start to the first interruption
 * (Infinity: none), one per place in the track.
 */
export function loudThenSoft(rateHz: number, softDb: number): number[] {
  const n = 4 * rateHz;
  const ref = new Int16Array(n);
  const hiss = noise('white', n, rateHz, 11);
  const loud = vowel(40, 130, 0.2 * 32768, rateHz);
  const soft = vowel(300, 120, 0.2 * 32768 * 10 ** (-softDb / 20), rateHz);
  const gap = Math.round(0.03 * rateHz);
  return OFFSETS_MS.map((offsetMs) => {
    const at = Math.round((offsetMs * rateHz) / 1000);
    const mic = Float32Array.from(hiss, (h) => 15 * h);
    mic.set(loud.map((v, i) => v + mic[at + i]), at);
    const softAt = at + loud.length + gap;
    mic.set(soft.map((v, i) => v + mic[softAt + i]), softAt);
    return interruptionsAt(toInt16(mic), ref, { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } })
      .map((ms) => ms - offsetMs)
      .find((d) => d >= -20) ?? Infinity;
  });
}
