// VAD accuracy on the generated corpus (espeak-ng speech + noise or babble at 0-20 dB
// SNR, both corpus halves) with stated thresholds, and state-machine behaviour on hum,
// clicks, a crowd that stops and a talker who hardly pauses.
import t from 'tap';
import { Vad, VadEvents } from '../../src/audio/native.js';
import {
  FRAME_MS, HALVES, NOISE_KINDS, activePower, f1, halfTrack, labelFrames, median, mix, noise, onsetLatenciesMs, rocAuc,
  speechTrack, toInt16,
} from './corpus.js';

// Stated thresholds for the stationary noises, both halves (issue targets: AUC >= 0.96 at
// 10 dB and >= 0.85 at 0 dB in white/pink noise; onset median <= 30 ms).
const MIN_AUC: Record<number, number> = { 0: 0.85, 5: 0.93, 10: 0.96, 20: 0.97 };
const MIN_F1: Record<number, number> = { 0: 0.75, 5: 0.85, 10: 0.9, 20: 0.92 };
// Quality floors on the held-out half (the VAD was tuned on the other one): babble >= 0.90
// and white/pink >= 0.97 at 10 dB (issue "Conversation quality").
const HELDOUT_MIN_AUC_10DB: Record<string, number> = { babble: 0.9, white: 0.97, pink: 0.97 };

function scores(x: Int16Array, rate: number, frames: number): Float32Array {
  const v = new Vad({ sampleRateHz: rate, frameMs: FRAME_MS });
  const fs = v.frameSamples;
  const s = new Float32Array(frames);
  for (let f = 0; f < frames; f++) s[f] = v.process(x.subarray(f * fs, (f + 1) * fs));
  return s;
}

for (const rate of [8000, 16000]) {
  for (const half of HALVES) {
    t.test(`accuracy at ${rate} Hz, ${half} half`, async (t) => {
      const track = halfTrack(half, rate);
      const onsets: number[] = [];
      for (const kind of NOISE_KINDS) {
        for (const snr of [0, 5, 10, 20]) {
          const s = scores(mix(track, kind, snr), rate, track.labels.length);
          const auc = rocAuc(s, track.labels), fs = f1(s, track.labels);
          const lat = onsetLatenciesMs(s, track);
          if (snr >= 10) onsets.push(...lat);
          t.ok(auc >= MIN_AUC[snr], `${kind} ${snr} dB: AUC ${auc.toFixed(3)} >= ${MIN_AUC[snr]}`);
          t.ok(fs >= MIN_F1[snr], `${kind} ${snr} dB: F1 ${fs.toFixed(3)} >= ${MIN_F1[snr]}`);
          t.ok(lat.length >= track.onsetsMs.length - 1, `${kind} ${snr} dB: ${lat.length}/${track.onsetsMs.length} onsets found`);
        }
      }
      t.ok(median(onsets) <= 30, `onset latency median at >= 10 dB: ${median(onsets).toFixed(1)} ms <= 30`);
      for (const snr of [0, 5, 10, 20]) {
        const auc = rocAuc(scores(mix(track, 'babble', snr), rate, track.labels.length), track.labels);
        if (half === 'heldout' && snr === 10) t.ok(auc >= HELDOUT_MIN_AUC_10DB.babble, `babble 10 dB: AUC ${auc.toFixed(3)} >= 0.9`);
        else t.comment(`babble ${snr} dB: AUC ${auc.toFixed(3)}`);
      }
      if (half === 'heldout') {
        for (const kind of ['white', 'pink'] as const) {
          const auc = rocAuc(scores(mix(track, kind, 10), rate, track.labels.length), track.labels);
          t.ok(auc >= HELDOUT_MIN_AUC_10DB[kind], `${kind} 10 dB: AUC ${auc.toFixed(3)} >= ${HELDOUT_MIN_AUC_10DB[kind]}`);
        }
      }
    });
  }
}

t.test('state machine: hum, stationary noise and clicks never become speech', async (t) => {
  const rate = 16000, n = rate * 6;
  const hum = noise('hum', n, rate).map((v) => v * 3000);
  const white = noise('white', n, rate, 4).map((v) => v * 1000);
  const clicks = new Float32Array(n);
  for (let i = rate; i < n; i += Math.floor(rate * 0.37)) for (let k = 0; k < 40; k++) clicks[i + k] = (k % 2 ? -1 : 1) * 20000 * Math.exp(-k / 8);
  for (const [name, sig] of [['hum', hum], ['white', white], ['clicks over hiss', clicks.map((v, i) => v + white[i] * 0.1)]] as const) {
    const v = new Vad({ sampleRateHz: rate, frameMs: 20, startMs: 60 });
    const x = toInt16(sig as Float32Array);
    let speaking = 0;
    for (let f = 0; f < n / 320; f++) {
      v.process(x.subarray(f * 320, (f + 1) * 320));
      if (f > 25 && v.state === 'speaking') speaking++;  // after 0.5 s of adaptation
    }
    t.equal(speaking, 0, `${name}: no speaking frames`);
  }
});

t.test('speech start/end events with back-dated times', async (t) => {
  const rate = 16000;
  const track = speechTrack(rate, 1, 4);
  const x = mix(track, 'pink', 10);
  const v = new Vad({ sampleRateHz: rate, frameMs: 20, startMs: 60, stopMs: 400 });
  const starts: number[] = [];
  let ends = 0;
  for (let f = 0; f < track.labels.length; f++) {
    v.process(x.subarray(f * 320, (f + 1) * 320));
    if (v.events & VadEvents.speechStart) starts.push(v.speechStartMs);
    if (v.events & VadEvents.speechEnd) ends++;
  }
  t.equal(starts.length, 4, 'one start per sentence');
  t.ok(ends >= 3, 'ends reported');
  starts.forEach((s, i) => t.ok(Math.abs(s - track.onsetsMs[i]) <= 60, `start ${s} ms near onset ${track.onsetsMs[i].toFixed(0)} ms`));
});

// The background level follows a crowd up to its typical level (so babble alone scores low);
// once the input stays 10 dB under it for 200 ms the crowd has stopped and it drops to the
// floor, so a caller quieter than the crowd was is heard at once.
t.test('a crowd that stops does not mask a quieter caller after it', async (t) => {
  const rate = 16000, fs = 320;
  const track = speechTrack(rate, 1, 2);
  const crowd = 15 * rate;
  const bab = noise('babble', crowd, rate, 99, 'tune');
  const hiss = noise('white', crowd + track.pcm.length, rate, 3);
  for (const belowDb of [10, 20]) {
    const g = Math.sqrt(activePower(track)) * 10 ** (belowDb / 20);
    const x = toInt16(Float32Array.from({ length: crowd + track.pcm.length }, (_, i) =>
      (i < crowd ? g * bab[i] : track.pcm[i - crowd]) + 0.003 * g * hiss[i]));
    const v = new Vad({ sampleRateHz: rate, frameMs: 20 });
    let hit = 0, active = 0;
    const starts: number[] = [];
    for (let f = 0; f < Math.floor(x.length / fs); f++) {
      const p = v.process(x.subarray(f * fs, (f + 1) * fs));
      if (v.events & VadEvents.speechStart) starts.push(v.speechStartMs - crowd / (rate / 1000));
      const k = f - crowd / fs;
      if (k >= 0 && track.labels[k]) { active++; hit += p >= 0.5 ? 1 : 0; }
    }
    const first = track.onsetsMs[0];
    t.ok(hit / active >= 0.9, `caller ${belowDb} dB under the crowd: ${(100 * hit / active).toFixed(1)}% of speech frames >= 0.5`);
    t.ok(starts.some((s) => Math.abs(s - first) <= 60), `first start ${starts.find((s) => s >= 0)} ms near onset ${first.toFixed(0)} ms`);
  }
});

// The background is a running quantile (a third of the recent hops below it): a talker who
// hardly pauses must not become their own background.
t.test('a talker who hardly pauses stays in speech', async (t) => {
  const rate = 16000, fs = 320;
  const src = halfTrack('tune', rate);
  const parts: Float32Array[] = [new Float32Array(rate)];
  for (let f = 0; f < src.labels.length; ) {  // the sentences back to back, 120 ms apart
    if (!src.labels[f]) { f++; continue; }
    let g = f;
    while (g < src.labels.length && src.labels[g]) g++;
    parts.push(src.pcm.subarray(f * fs, g * fs), new Float32Array(0.12 * rate));
    f = g;
  }
  const pcm = new Float32Array(parts.reduce((a, p) => a + p.length, 0));
  parts.reduce((o, p) => (pcm.set(p, o), o + p.length), 0);
  const labels = labelFrames(pcm, rate);
  const nz = noise('white', pcm.length, rate, 99);
  const g = Math.sqrt(activePower({ pcm, labels, rateHz: rate, onsetsMs: [] }) / 10);
  const x = toInt16(pcm.map((v, i) => v + g * nz[i]));
  const v = new Vad({ sampleRateHz: rate, frameMs: 20 });
  let starts = 0, inSpeech = 0, active = 0;
  for (let f = 0; f < labels.length; f++) {
    v.process(x.subarray(f * fs, (f + 1) * fs));
    if (v.events & VadEvents.speechStart) starts++;
    if (labels[f]) { active++; inSpeech += v.state === 'speaking' || v.state === 'stopping' ? 1 : 0; }
  }
  t.equal(starts, 1, `${(pcm.length / rate).toFixed(0)} s of speech with 120 ms pauses: one speech start`);
  t.ok(inSpeech / active >= 0.99, `${(100 * inSpeech / active).toFixed(1)}% of its frames in speech`);
});
