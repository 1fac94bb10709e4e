// A short loud vowel must not lift the caller's noise floor over the syllable after it. The
// scorer's floor step is linear in power: a vowel ~50 dB over a quiet line lifted the detector's
// floor ~30 dB within 60 ms, and the softer syllable that followed (a taped carrier call: "Excuse
// me", caller -21 dBFS) counted for nothing until the floor fell back, 100-200 ms later. On a hop
// that looks like speech the detector's floor now rises at most 3 dB (kFloorSpeechRise).
//
// The agent is silent (between phrases, or a line whose echo is known to be absent): nothing
// bounds the caller but the line's own noise. Before the limit no placement raised an
// interruption. A vowel 32 dB softer still waits at 8 kHz (four hops at 3 dB are 12 dB).
import t from 'tap';
import { loudThenSoft } from './vowel.js';

for (const rateHz of [16000, 8000]) {
  t.test(`${rateHz / 1000} kHz: the syllable after a short loud vowel counts`, async (t) => {
    for (const softDb of [20, 26]) {
      const ms = loudThenSoft(rateHz, softDb);
      t.ok(ms.every((d) => d <= 220), `soft vowel ${softDb} dB under: ${ms.map((d) => Math.round(d)).join(', ')} ms (each <= 220)`);
    }
  });

  t.test(`${rateHz / 1000} kHz: the loud vowel alone does not interrupt`, async (t) => {
    const ms = loudThenSoft(rateHz, 200);
    t.ok(ms.every((d) => !Number.isFinite(d)), `no interruption: ${ms.join(', ')}`);
  });
}
