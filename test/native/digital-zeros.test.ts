// Digital zeros on the microphone. The browser client sends zeros while muted; the scorers'
// noise floor followed them down, ~90 dB under the line that came back, which then scored as
// speech until their band minima caught up 1.5 s later: the barge-in detector interrupted the
// agent after every 0.5-3 s mute at 16 and 8 kHz, the VAD reported speech, and over an echo path
// the echo gain had decayed during the mute, so the echo came back unbounded (a false
// interruption, and a caller after it heard 2.3-4.2 s late or missed). Now zeros after 1.5 s of
// signal hold the floor still, and the echo gain learns nothing from zeros. Zeros before or
// between words (a digital caller, a line with silence suppression) still teach the floor, so a
// word after them is heard at once (and bargein-lines.test.ts). A stream that opens with zeros
// and then its line (a browser's microphone starting) seeds the floor from that line, up to
// -50 dBFS: seeded from the zeros, the line scored as speech (a false interruption 60-100 ms in).
import t from 'tap';
import { Vad, VadEvents } from '../../src/audio/native.js';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, echoOf, noise, speechTrack, toInt16 } from './corpus.js';

const MUTES_MS = [500, 1000, 3000];
const NOISE_DBFS = [-80, -60, -45];
const SECONDS = 14;
const MUTE_AT_S = 4;

/** White noise at `noiseDbfs` (RMS) with zeros from MUTE_AT_S for `muteMs`. */
function muted(rateHz: number, muteMs: number, noiseDbfs: number): Float32Array {
  const g = 32768 * 10 ** (noiseDbfs / 20); // the corpus noise has unit RMS
  const from = MUTE_AT_S * rateHz, to = from + Math.round((muteMs * rateHz) / 1000);
  return noise('white', SECONDS * rateHz, rateHz, 7).map((v, i) => (i >= from && i < to ? 0 : g * v));
}

/** A caller at `dbfs` (active speech; -26 unless told) from `atMs` for 1.5 s, added to `mic`. */
function addCaller(mic: Float32Array, rateHz: number, atMs: number, dbfs = -26): void {
  const caller = speechTrack(rateHz, 3, 4);
  const onset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
  const g = (32768 * 10 ** (dbfs / 20)) / Math.sqrt(caller.pcm.reduce((s, v) => s + v * v, 0) / caller.pcm.length);
  const at = Math.round((atMs * rateHz) / 1000);
  for (let i = 0; i < 1.5 * rateHz && at + i < mic.length; i++) mic[at + i] += g * caller.pcm[onset + i];
}

function vadStarts(x: Int16Array, rateHz: number): number {
  const v = new Vad({ sampleRateHz: rateHz, frameMs: 20 });
  const fs = v.frameSamples;
  let starts = 0;
  for (let f = 0; (f + 1) * fs <= x.length; f++) {
    v.process(x.subarray(f * fs, (f + 1) * fs));
    if (v.events & VadEvents.speechStart) starts++;
  }
  return starts;
}

for (const rateHz of [16000, 8000]) {
  const agent = agentTrack(rateHz);
  const ref = toInt16(agent.pcm.subarray(0, SECONDS * rateHz));
  const opts = { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } };

  t.test(`${rateHz / 1000} kHz: a microphone muted while the agent speaks: no interruption, and a caller after it is heard`, async (t) => {
    const paths: [string, Float32Array][] = [
      ['no echo', new Float32Array(ref.length)],
      ['echo 100 ms / -10 dB', echoOf(agent.pcm.subarray(0, ref.length), rateHz, 100, 10)],
      ['echo 250 ms / -20 dB', echoOf(agent.pcm.subarray(0, ref.length), rateHz, 250, 20)],
    ];
    for (const [path, echo] of paths) for (const muteMs of MUTES_MS) {
      const line = muted(rateHz, muteMs, -60);
      const mic = line.map((v, i) => (v === 0 ? 0 : v + echo[i]));
      t.same(interruptionsAt(toInt16(mic), ref, opts), [], `${path}, muted ${muteMs} ms: no interruption`);
      const cutInMs = MUTE_AT_S * 1000 + muteMs + 1000;
      addCaller(mic, rateHz, cutInMs);
      const latency = interruptionsAt(toInt16(mic), ref, opts).map((ms) => ms - cutInMs).find((d) => d >= 0);
      t.ok(latency !== undefined && latency <= 400, `${path}, muted ${muteMs} ms, a caller 1 s after: interrupted after ${latency} ms (<= 400)`);
    }
  });

  t.test(`${rateHz / 1000} kHz: the line after a mute, at any level: no interruption, and the VAD hears no speech`, async (t) => {
    for (const muteMs of MUTES_MS) for (const noiseDbfs of NOISE_DBFS) {
      const mic = toInt16(muted(rateHz, muteMs, noiseDbfs));
      t.same(interruptionsAt(mic, ref, opts), [], `muted ${muteMs} ms, noise at ${noiseDbfs} dBFS: no interruption`);
      t.equal(vadStarts(mic, rateHz), 0, `muted ${muteMs} ms, noise at ${noiseDbfs} dBFS: no speech`);
    }
  });

  t.test(`${rateHz / 1000} kHz: a digital caller (zeros, then a word) is heard at once`, async (t) => {
    for (const zerosMs of [300, 1500]) for (const dbfs of [-26, -40]) {
      const mic = new Float32Array(ref.length);
      addCaller(mic, rateHz, zerosMs, dbfs);
      const latency = interruptionsAt(toInt16(mic), ref, opts).map((ms) => ms - zerosMs).find((d) => d >= 0);
      const what = `${zerosMs} ms of zeros, then a caller at ${dbfs} dBFS`;
      // A quiet caller 1.5 s into a call is under the bound of an echo not yet learned: 160 ms
      // with the opening seed and without it (issue #15's remaining early-call cut-ins).
      const bound = dbfs === -40 && zerosMs === 1500 ? 200 : 150;
      t.ok(latency !== undefined && latency <= bound, `${what}: interrupted after ${latency} ms (<= ${bound})`);
      t.ok(vadStarts(toInt16(mic), rateHz) >= 1, `${what}: the VAD hears speech`);
    }
  });

  t.test(`${rateHz / 1000} kHz: a stream that opens with zeros, then its line: no interruption, no speech; a caller after it is heard`, async (t) => {
    for (const kind of ['white', 'pink'] as const) for (const zerosMs of [20, 300, 1000]) for (const noiseDbfs of [-80, -65, -50]) {
      const g = 32768 * 10 ** (noiseDbfs / 20);
      const from = Math.round((zerosMs * rateHz) / 1000);
      const line = noise(kind, SECONDS * rateHz, rateHz, 7).map((v, i) => (i < from ? 0 : g * v));
      const what = `${zerosMs} ms of zeros, then ${kind} noise at ${noiseDbfs} dBFS`;
      t.same(interruptionsAt(toInt16(line), ref, opts), [], `${what}: no interruption`);
      t.equal(vadStarts(toInt16(line), rateHz), 0, `${what}: no speech`);
      if (noiseDbfs !== -50) continue;
      // A caller early in the call: 160 ms at 8 kHz after 20 ms of zeros with or without the
      // opening seed (140 ms on a stream that opens on its line), 100-140 ms otherwise.
      const cutInMs = zerosMs + 1500;
      addCaller(line, rateHz, cutInMs);
      const latency = interruptionsAt(toInt16(line), ref, opts).map((ms) => ms - cutInMs).find((d) => d >= 0);
      t.ok(latency !== undefined && latency <= 200, `${what}, a caller 1.5 s after: interrupted after ${latency} ms (<= 200)`);
    }
  });
}
