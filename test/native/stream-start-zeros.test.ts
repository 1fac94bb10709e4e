// A stream whose first frames are digital zeros (a browser's microphone starting, a carrier's
// first packets) and then carries its line noise. The scorers seeded their noise floor from the
// zeros, ~90 dB under the noise that followed, which then scored as speech until their band
// minima caught up 1.5 s later: the barge-in detector interrupted the greeting after 300 ms or
// more of zeros, even under -80 dBFS noise, and the VAD reported the noise as speech. The
// warm-up now starts with the first hop that carries a signal. A caller who then speaks is
// still heard.
import t from 'tap';
import { Vad, VadEvents } from '../../src/audio/native.js';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, noise, speechTrack, toInt16 } from './corpus.js';

const ZEROS_MS = [20, 100, 300, 1000];
const NOISE_DBFS = [-80, -60, -45];
const SECONDS = 8;

/** Zeros for `zerosMs`, then white noise at `noiseDbfs` (RMS), `SECONDS` long in all. */
function line(rateHz: number, zerosMs: number, noiseDbfs: number): Float32Array {
  const g = 32768 * 10 ** (noiseDbfs / 20); // the corpus noise has unit RMS
  const hiss = noise('white', SECONDS * rateHz, rateHz, 7);
  const z = Math.round((zerosMs * rateHz) / 1000);
  return hiss.map((v, i) => (i < z ? 0 : g * v));
}

for (const rateHz of [16000, 8000]) {
  const agent = agentTrack(rateHz);
  const ref = toInt16(agent.pcm.subarray(0, SECONDS * rateHz));
  const detect = (mic: Float32Array) => interruptionsAt(toInt16(mic), ref, { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } });

  t.test(`${rateHz / 1000} kHz: zeros, then the line's noise, while the agent greets: no interruption`, async (t) => {
    for (const zerosMs of ZEROS_MS) for (const noiseDbfs of NOISE_DBFS) {
      t.same(detect(line(rateHz, zerosMs, noiseDbfs)), [], `${zerosMs} ms of zeros, noise at ${noiseDbfs} dBFS`);
    }
  });

  t.test(`${rateHz / 1000} kHz: after zeros and noise, a caller cutting in is heard`, async (t) => {
    const caller = speechTrack(rateHz, 3, 4);
    const onset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
    const cutInMs = 3000;
    const at = Math.round((cutInMs * rateHz) / 1000);
    const g = 32768 * 10 ** (-26 / 20) / Math.sqrt(caller.pcm.reduce((s, v) => s + v * v, 0) / caller.pcm.length);
    for (const zerosMs of ZEROS_MS) {
      const mic = line(rateHz, zerosMs, -60);
      for (let i = 0; i < 1.5 * rateHz && at + i < mic.length; i++) mic[at + i] += g * caller.pcm[onset + i];
      const latency = detect(mic).map((ms) => ms - cutInMs).find((d) => d >= 0);
      t.ok(latency !== undefined && latency <= 300, `${zerosMs} ms of zeros: interrupted ${latency} ms after the cut-in (<= 300)`);
    }
  });

  t.test(`${rateHz / 1000} kHz: the VAD takes the noise after zeros for noise`, async (t) => {
    for (const zerosMs of ZEROS_MS) for (const noiseDbfs of NOISE_DBFS) {
      const v = new Vad({ sampleRateHz: rateHz, frameMs: 20 });
      const x = toInt16(line(rateHz, zerosMs, noiseDbfs));
      const fs = v.frameSamples;
      let starts = 0;
      for (let f = 0; (f + 1) * fs <= x.length; f++) {
        v.process(x.subarray(f * fs, (f + 1) * fs));
        if (v.events & VadEvents.speechStart) starts++;
      }
      t.equal(starts, 0, `${zerosMs} ms of zeros, noise at ${noiseDbfs} dBFS: no speech`);
    }
  });
}
