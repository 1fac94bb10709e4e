// A word said as the stream opens ("yes?" at pickup, "hello?" on a socket that connects while
// the caller already talks). The VAD seeds its noise floor from the first hop, so such a word
// used to become the line's noise and was never speech; it now looks back over the first
// second once the noise is known. A sound at the start must be judged as it would be later.
import t from 'tap';
import { Vad, VadEvents } from '../../src/audio/native.js';
import { noise, rng, speak, toInt16 } from './corpus.js';

const WORDS = ['Yes.', 'No.', 'Hello?', 'Billing.'];
const VOICES = ['en-us', 'en-gb-scotland', 'en-us+f4'];

interface Starts { count: number; firstAtMs: number; firstFromMs: number; ends: number }

function run(x: Int16Array, rate: number): Starts {
  const v = new Vad({ sampleRateHz: rate, frameMs: 20 });
  const fs = v.frameSamples;
  const s: Starts = { count: 0, firstAtMs: -1, firstFromMs: -1, ends: 0 };
  for (let f = 0; (f + 1) * fs <= x.length; f++) {
    v.process(x.subarray(f * fs, (f + 1) * fs));
    if (v.events & VadEvents.speechStart && s.count++ === 0) { s.firstAtMs = f * 20; s.firstFromMs = v.speechStartMs; }
    if (v.events & VadEvents.speechEnd) s.ends++;
  }
  return s;
}

/** White noise at `levelDbfs` (RMS) for `seconds`. */
function line(rate: number, seconds: number, levelDbfs: number, seed: number): Float32Array {
  const g = 32768 * 10 ** (levelDbfs / 20);  // the corpus noise has unit RMS
  return noise('white', Math.round(rate * seconds), rate, seed).map((v) => v * g);
}

for (const rate of [8000, 16000]) {
  t.test(`${rate} Hz: a word already under way when the stream opens is heard`, async (t) => {
    for (const word of WORDS) for (const voice of VOICES) for (const noiseDb of [-60, -45]) {
      const s = speak(word, voice, rate);
      let onset = 0;
      while (onset < s.length && Math.abs(s[onset]) < 300) onset++;
      for (const intoMs of [0, 50, 100]) {
        const from = onset + Math.round((intoMs * rate) / 1000);
        const x = line(rate, (s.length - from) / rate + 2, noiseDb, 5);
        for (let i = from; i < s.length; i++) x[i - from] += s[i];
        const r = run(toInt16(x), rate);
        const what = `"${word}" ${voice}, noise ${noiseDb} dBFS, stream opens ${intoMs} ms into it`;
        t.equal(r.count, 1, `${what}: one speech start (at ${r.firstAtMs} ms)`);
        t.ok(r.firstFromMs >= 0 && r.firstFromMs <= 60, `${what}: back-dated to ${r.firstFromMs} ms`);
        t.equal(r.ends, 1, `${what}: and its end`);
      }
    }
  });

  t.test(`${rate} Hz: a sound at the stream's start is judged as it would be later`, async (t) => {
    const r = rng(3);
    for (const noiseDb of [-60, -45, -30]) for (const ms of [5, 10, 60, 100]) {
      const starts: number[] = [];
      for (const atS of [0, 1.5]) {
        const x = line(rate, 3, noiseDb, 7);
        const a = Math.round(atS * rate);
        for (let i = 0; i < (ms * rate) / 1000; i++) x[a + i] += (r() * 2 - 1) * 8000;
        starts.push(run(toInt16(x), rate).count);
      }
      t.equal(starts[0], starts[1], `${ms} ms burst over ${noiseDb} dBFS: ${starts[0]} speech starts at 0 s, ${starts[1]} at 1.5 s`);
      if (ms <= 10) t.equal(starts[0], 0, `a ${ms} ms click at the start is not speech`);
    }
    for (const noiseDb of [-60, -45, -30]) {
      t.equal(run(toInt16(line(rate, 3, noiseDb, 11)), rate).count, 0, `white noise alone at ${noiseDb} dBFS: no speech start`);
    }
  });
}
