// A short loud vowel must not lift the caller's noise floor over the syllable after it. The
// scorer's floor step is linear in power: a vowel ~50 dB over a quiet line lifted the detector's
// floor ~30 dB within 60 ms, and the softer syllable that followed (a taped carrier call: "Excuse
// me", caller -21 dBFS) counted for nothing until the floor fell back, 100-200 ms later. On a hop
// that looks like speech the detector's floor now rises at most 3 dB (kFloorSpeechRise).
//
// The caller here: a 40 ms vowel at -14 dBFS (too short to interrupt alone), 30 ms of near silence
// (a stop), then a vowel 20 or 26 dB softer. Before the limit no placement raised an interruption.
// A vowel 32 dB softer still waits at 8 kHz (156-340 ms, one missed: four hops at 3 dB are 12 dB).
import t from 'tap';
import { interruptionsAt } from './barge-in-run.js';
import { noise, toInt16 } from './corpus.js';

/** A voiced stretch: harmonics of f0 falling 6 dB per octave, 10 ms ramps, peak amplitude `amp`. */
function vowel(ms: number, f0: number, amp: number, rateHz: number): Float32Array {
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

// The agent silent (between phrases, or a line whose echo is known to be absent): nothing bounds
// the caller but the line's own noise, and nothing stopped the floor from following the vowel.
const OFFSETS_MS = [1000, 1007, 1013, 1019, 2504, 3011];

for (const rateHz of [16000, 8000]) {
  const n = 4 * rateHz;
  const ref = new Int16Array(n);
  const hiss = noise('white', n, rateHz, 11);
  const loud = vowel(40, 130, 0.2 * 32768, rateHz);
  const gap = Math.round(0.03 * rateHz);

  /** Latency from the loud vowel's start to the first interruption, per placement. */
  const latencies = (softDb: number) => {
    const soft = vowel(300, 120, 0.2 * 32768 * 10 ** (-softDb / 20), rateHz);
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
  };

  t.test(`${rateHz / 1000} kHz: the syllable after a short loud vowel counts`, async (t) => {
    // The soft vowel starts 70 ms in; the burst-tail rule holds it for 100 ms after the loud one.
    for (const softDb of [20, 26]) {
      const ms = latencies(softDb);
      t.ok(ms.every((d) => d <= 220), `soft vowel ${softDb} dB under: ${ms.map((d) => Math.round(d)).join(', ')} ms (each <= 220)`);
    }
  });

  t.test(`${rateHz / 1000} kHz: the loud vowel alone does not interrupt`, async (t) => {
    const ms = latencies(200);
    t.ok(ms.every((d) => !Number.isFinite(d)), `no interruption: ${ms.join(', ')}`);
  });
}
