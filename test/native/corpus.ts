// Labelled test corpus: espeak-ng speech (resampled by sox, independent of our
// resampler) mixed with seeded noise at set SNRs, plus agent-echo scenarios.
// Clean speech is cached under .data/corpus/ (gitignored).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const CORPUS_DIR = join(process.cwd(), '.data', 'corpus');
export const FRAME_MS = 20;

const SENTENCES = [
  'Hello, I would like to change my appointment to next Tuesday afternoon.',
  'Could you tell me the balance on my account, please?',
  'No, that is not what I asked for. I need the invoice from March.',
  'My order number is four seven two nine one, and it arrived damaged.',
  'Yes, please go ahead and book the table for six people at eight.',
  'I have been waiting on hold for twenty minutes already.',
  'Can you spell that again slowly? I did not catch the last part.',
  'The delivery address is twelve Baker Street, second floor.',
  'Thanks, that works for me. Is there anything else I should bring?',
  'Actually, wait, I think there is a mistake in the total amount.',
  'We would prefer a window seat if one is still available.',
  'Please cancel the subscription and send me a confirmation email.',
];
const VOICES = ['en-us', 'en-gb+f3', 'en-us+m3', 'en+f2', 'en-gb-x-rp+m5', 'en-us+f4'];
const AGENT_SENTENCES = [
  'Thank you for calling. I can help you with bookings, payments and deliveries today.',
  'Let me check that for you. Your current balance is one hundred and twenty dollars.',
  'I have found three available times next week: Monday at ten, Wednesday at two, and Friday at four.',
  'Before we continue, I need to confirm your identity with a few short security questions.',
];

/** Speech of one sentence at rateHz (cached). */
export function speak(text: string, voice: string, rateHz: number): Int16Array {
  mkdirSync(CORPUS_DIR, { recursive: true });
  const key = Buffer.from(`${voice}|${rateHz}|${text}`).toString('base64url').slice(0, 80);
  const raw = join(CORPUS_DIR, `${key}.raw`);
  if (!existsSync(raw)) {
    const wav = join(CORPUS_DIR, `${key}.wav`);
    execFileSync('espeak-ng', ['-v', voice, '-w', wav, text]);
    execFileSync('sox', [wav, '-t', 'raw', '-r', String(rateHz), '-e', 'signed', '-b', '16', '-c', '1', raw]);
  }
  const b = readFileSync(raw);
  return new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** Deterministic PRNG (mulberry32) so every run sees the same corpus. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Track { pcm: Float32Array; labels: Uint8Array; rateHz: number; onsetsMs: number[] }

/** Frame labels: active when the clean frame is within 35 dB of the loudest; gaps < 60 ms closed. */
export function labelFrames(pcm: Float32Array, rateHz: number, frameMs = FRAME_MS): Uint8Array {
  const fs = (rateHz * frameMs) / 1000;
  const n = Math.floor(pcm.length / fs);
  const db = new Float64Array(n);
  let peak = -200;
  for (let f = 0; f < n; f++) {
    let e = 0;
    for (let i = 0; i < fs; i++) e += pcm[f * fs + i] ** 2;
    db[f] = 10 * Math.log10(e / fs + 1e-9);
    peak = Math.max(peak, db[f]);
  }
  const lab = new Uint8Array(n);
  for (let f = 0; f < n; f++) lab[f] = db[f] > peak - 35 ? 1 : 0;
  const maxGap = Math.floor(60 / frameMs);
  for (let f = 0; f < n; ) {
    if (lab[f]) { f++; continue; }
    let g = f;
    while (g < n && !lab[g]) g++;
    if (f > 0 && g < n && g - f <= maxGap) lab.fill(1, f, g);
    f = g;
  }
  return lab;
}

/** Clean speech track: sentences separated by 0.5-1.5 s pauses, 1 s lead-in. */
export function speechTrack(rateHz: number, seed = 1, count = SENTENCES.length, voices = VOICES,
  sentences = SENTENCES): Track {
  const r = rng(seed);
  const parts: Float32Array[] = [];
  const onsetsMs: number[] = [];
  let len = rateHz;  // lead-in silence
  parts.push(new Float32Array(rateHz));
  for (let i = 0; i < count; i++) {
    const s = speak(sentences[i % sentences.length], voices[(i + seed) % voices.length], rateHz);
    const f = Float32Array.from(s, (v) => v * 0.7);
    let first = 0;
    while (first < f.length && Math.abs(f[first]) < 300) first++;
    onsetsMs.push(((len + first) / rateHz) * 1000);
    parts.push(f);
    len += f.length;
    const gap = Math.floor(rateHz * (0.5 + r()));
    parts.push(new Float32Array(gap));
    len += gap;
  }
  const pcm = new Float32Array(len);
  let o = 0;
  for (const p of parts) { pcm.set(p, o); o += p.length; }
  return { pcm, labels: labelFrames(pcm, rateHz), rateHz, onsetsMs };
}

export function agentTrack(rateHz: number, seed = 7): Track {
  return speechTrack(rateHz, seed, AGENT_SENTENCES.length * 2, ['en-us+m1', 'en-gb+f1'], AGENT_SENTENCES);
}

export type NoiseKind = 'white' | 'pink' | 'brown' | 'hum';
export const NOISE_KINDS: NoiseKind[] = ['white', 'pink', 'brown', 'hum'];

/** Unit-RMS noise of a kind (independent TS implementations, seeded). */
export function noise(kind: NoiseKind, n: number, rateHz: number, seed = 99): Float32Array {
  const r = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const out = new Float32Array(n);
  let b0 = 0, b1 = 0, b2 = 0, b3 = 0, b4 = 0, b5 = 0, b6 = 0, br = 0;
  for (let i = 0; i < n; i++) {
    const w = gauss();
    if (kind === 'white') out[i] = w;
    else if (kind === 'pink') {
      b0 = 0.99886 * b0 + w * 0.0555179; b1 = 0.99332 * b1 + w * 0.0750759;
      b2 = 0.969 * b2 + w * 0.153852; b3 = 0.8665 * b3 + w * 0.3104856;
      b4 = 0.55 * b4 + w * 0.5329522; b5 = -0.7616 * b5 - w * 0.016898;
      out[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362; b6 = w * 0.115926;
    } else if (kind === 'brown') { br = 0.995 * br + w * 0.1; out[i] = br; }
    else {  // 50 Hz mains hum with harmonics over a little broadband hiss
      const t = i / rateHz;
      out[i] = Math.sin(2 * Math.PI * 50 * t) + 0.6 * Math.sin(2 * Math.PI * 150 * t + 1) +
        0.4 * Math.sin(2 * Math.PI * 250 * t + 2) + 0.25 * Math.sin(2 * Math.PI * 350 * t) + 0.05 * w;
    }
  }
  let e = 0;
  for (const v of out) e += v * v;
  const g = 1 / Math.sqrt(e / n);
  for (let i = 0; i < n; i++) out[i] *= g;
  return out;
}

/** Mean power of the speech over its labelled-active frames. */
export function activePower(t: Track): number {
  const fs = (t.rateHz * FRAME_MS) / 1000;
  let e = 0, k = 0;
  t.labels.forEach((l, f) => {
    if (!l) return;
    for (let i = 0; i < fs; i++) e += t.pcm[f * fs + i] ** 2;
    k += fs;
  });
  return e / Math.max(1, k);
}

/** Speech + noise at snrDb, as int16. */
export function mix(t: Track, kind: NoiseKind, snrDb: number, seed = 99): Int16Array {
  const nz = noise(kind, t.pcm.length, t.rateHz, seed);
  const g = Math.sqrt(activePower(t) / 10 ** (snrDb / 10));
  return toInt16(t.pcm.map((v, i) => v + g * nz[i]));
}

export function toInt16(x: Float32Array): Int16Array {
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/** Delayed, attenuated and slightly low-passed copy of the agent audio (room + handset). */
export function echoOf(ref: Float32Array, rateHz: number, delayMs: number, attenDb: number): Float32Array {
  const d = Math.round((rateHz * delayMs) / 1000);
  const g = 10 ** (-attenDb / 20);
  const out = new Float32Array(ref.length);
  let lp = 0;
  for (let i = d; i < ref.length; i++) { lp += 0.6 * (ref[i - d] - lp); out[i] = g * lp; }
  return out;
}

/** ROC AUC via the rank-sum statistic (ties count half). */
export function rocAuc(scores: ArrayLike<number>, labels: ArrayLike<number>): number {
  const idx = Array.from({ length: labels.length }, (_, i) => i).sort((a, b) => scores[a] - scores[b]);
  let rankSum = 0, pos = 0;
  for (let i = 0; i < idx.length; ) {
    let j = i;
    while (j + 1 < idx.length && scores[idx[j + 1]] === scores[idx[i]]) j++;
    const avg = (i + j) / 2 + 1;
    for (let k = i; k <= j; k++) if (labels[idx[k]]) { rankSum += avg; pos++; }
    i = j + 1;
  }
  const neg = labels.length - pos;
  return pos && neg ? (rankSum - (pos * (pos + 1)) / 2) / (pos * neg) : NaN;
}

export function f1(scores: ArrayLike<number>, labels: ArrayLike<number>, threshold = 0.5): number {
  let tp = 0, fp = 0, fn = 0;
  for (let i = 0; i < labels.length; i++) {
    const p = scores[i] >= threshold;
    if (p && labels[i]) tp++; else if (p) fp++; else if (labels[i]) fn++;
  }
  return tp ? (2 * tp) / (2 * tp + fp + fn) : 0;
}

/** Delay from each labelled onset to the first frame scored >= threshold (within 300 ms). */
export function onsetLatenciesMs(scores: ArrayLike<number>, t: Track, threshold = 0.5): number[] {
  const out: number[] = [];
  for (const on of t.onsetsMs) {
    const f0 = Math.floor(on / FRAME_MS);
    for (let f = f0; f < Math.min(scores.length, f0 + 300 / FRAME_MS); f++) {
      if (scores[f] >= threshold) { out.push(Math.max(0, (f + 1) * FRAME_MS - on)); break; }
    }
  }
  return out;
}

export function median(x: number[]): number {
  const s = [...x].sort((a, b) => a - b);
  return s.length ? s[Math.floor(s.length / 2)] : NaN;
}
