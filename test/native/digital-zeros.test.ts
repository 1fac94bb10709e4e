// Digital zeros on the microphone: a stream whose first frames are zeros (a browser's microphone
// starting, a carrier's first packets), and a microphone muted mid-call (the browser client sends
// zeros while muted). The scorers learned their noise floor on the zeros, ~90 dB under the line
// that followed, which then scored as speech until their band minima caught up 1.5 s later: the
// barge-in detector interrupted the greeting after 300 ms or more of leading zeros (even under
// -80 dBFS noise) and the agent after every 0.5-3 s mute, the VAD reported the noise as speech,
// and over an echo path the echo gain had decayed during the mute, so the echo came back
// unbounded (a false interruption, and a caller after it slow or missed). Now the warm-up starts
// with the first hop that carries a signal, the floor a long signal had taught comes back when
// the zeros end, and the echo gain learns nothing from zeros. A caller who then speaks is heard.
// (Zeros between words on a line with silence suppression: bargein-lines.test.ts.)
import t from 'tap';
import { Vad, VadEvents } from '../../src/audio/native.js';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, echoOf, noise, speechTrack, toInt16 } from './corpus.js';

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

  t.test(`${rateHz / 1000} kHz: a microphone muted while the agent speaks, then a caller: no false interruption, the caller heard`, async (t) => {
    const n = 14 * rateHz;
    const agentRef = toInt16(agent.pcm.subarray(0, n));
    const hiss = noise('white', n, rateHz, 7);
    const caller = speechTrack(rateHz, 3, 4);
    const onset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
    const g = 32768 * 10 ** (-26 / 20) / Math.sqrt(caller.pcm.reduce((s, v) => s + v * v, 0) / caller.pcm.length);
    const paths: [string, Float32Array][] = [['no echo', new Float32Array(n)], ['echo 100 ms / -10 dB', echoOf(agent.pcm.subarray(0, n), rateHz, 100, 10)], ['echo 250 ms / -20 dB', echoOf(agent.pcm.subarray(0, n), rateHz, 250, 20)]];
    const opts = { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } };
    for (const [path, echo] of paths) for (const muteMs of [500, 1000, 3000]) {
      const from = 4 * rateHz, to = from + Math.round((muteMs * rateHz) / 1000);
      const mic = Float32Array.from({ length: n }, (_, i) => (i >= from && i < to ? 0 : 32768 * 10 ** (-60 / 20) * hiss[i] + echo[i]));
      t.same(interruptionsAt(toInt16(mic), agentRef, opts), [], `${path}, muted ${muteMs} ms: no interruption`);
      const cut = to + rateHz;
      for (let i = 0; i < 1.5 * rateHz && cut + i < n; i++) mic[cut + i] += g * caller.pcm[onset + i];
      const cutMs = (cut / rateHz) * 1000;
      const latency = interruptionsAt(toInt16(mic), agentRef, opts).map((ms) => ms - cutMs).find((d) => d >= 0);
      t.ok(latency !== undefined && latency <= 400, `${path}, muted ${muteMs} ms, a caller 1 s after: interrupted after ${latency} ms (<= 400)`);
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

  t.test(`${rateHz / 1000} kHz: the VAD takes the noise after a mute for noise`, async (t) => {
    for (const muteMs of [500, 1000, 3000]) for (const noiseDbfs of NOISE_DBFS) {
      const v = new Vad({ sampleRateHz: rateHz, frameMs: 20 });
      const from = 4 * rateHz, to = from + Math.round((muteMs * rateHz) / 1000);
      const x = toInt16(line(rateHz, 0, noiseDbfs).map((s, i) => (i >= from && i < to ? 0 : s)));
      const fs = v.frameSamples;
      let starts = 0;
      for (let f = 0; (f + 1) * fs <= x.length; f++) {
        v.process(x.subarray(f * fs, (f + 1) * fs));
        if (v.events & VadEvents.speechStart) starts++;
      }
      t.equal(starts, 0, `muted ${muteMs} ms, noise at ${noiseDbfs} dBFS: no speech`);
    }
  });
}
