// Labelled test corpus: espeak-ng speech (resampled by sox, independent of our
// resampler) mixed with seeded noise at set SNRs (white, pink, brown, hum and
// babble: several espeak-ng talkers at once), plus agent-echo scenarios.
// Two halves with different target texts and voices and different babble
// talkers, texts and mixes: 'tune' (the VAD is tuned on it) and 'heldout'.
// Clean speech is cached under .data/corpus/ (gitignored).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
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
// Held-out half: other sentences, other voices.
const HELDOUT_SENTENCES = [
  'Good morning, I am calling about the parcel that was supposed to arrive on Friday.',
  'Would it be possible to move my flight to the evening of the fourteenth?',
  'I think you charged me twice for the same thing last month.',
  'The reference on the letter says nine three eight, dash, seventy one.',
  'Sorry, could you repeat the opening hours for the weekend?',
  'My daughter needs a dentist appointment, preferably after school.',
  'It keeps saying my password is wrong even though I just reset it.',
  'Right, so the engineer comes between eight and noon on Monday?',
  'I would rather pay by bank transfer than with a card, if that is fine.',
  'Hold on, let me find a pen so I can write that down.',
  'The heating in the flat has not worked properly since the weekend.',
  'Great, then please put me down for two tickets in the front row.',
];
const HELDOUT_VOICES = ['en-gb-scotland', 'en-029+f1', 'en-us-nyc+m2', 'en-gb-x-gbclan+f5', 'en-gb-x-gbcwmd+m6', 'en+m4'];

/** One babble talker: espeak-ng voice, pitch (-p, 0-99) and speed (-s, words per minute). */
export interface Talker { voice: string; pitch: number; speed: number }

// Babble: eight talkers per half (BABBLE_TALKERS of them in each mix), each reading its half's
// pool in its own seeded order.
export const BABBLE_TALKERS = 6;
const BABBLE: Record<Half, { talkers: Talker[]; texts: string[] }> = {
  tune: {
    talkers: [
      { voice: 'en-us+m1', pitch: 35, speed: 165 }, { voice: 'en-gb+f1', pitch: 60, speed: 180 },
      { voice: 'en-us+Andy', pitch: 45, speed: 150 }, { voice: 'en-gb-x-rp+Annie', pitch: 70, speed: 190 },
      { voice: 'en+m6', pitch: 25, speed: 175 }, { voice: 'en-us+f5', pitch: 55, speed: 160 },
      { voice: 'en-gb+john', pitch: 40, speed: 200 }, { voice: 'en-us+linda', pitch: 65, speed: 170 },
    ],
    texts: [
      'So I told him the meeting was moved to Thursday, but he never reads his email.',
      'The new cafe on the corner does a really good lunch, you should try the soup.',
      'We drove up to the lake on Sunday and it rained the whole afternoon.',
      'Have you seen the figures for the third quarter? They look a lot better.',
      'My brother is moving to Leeds next month for a job at the hospital.',
      'I can never remember whether the bins go out on Tuesday or Wednesday.',
      'She said the printer on the second floor is broken again.',
      'If we leave at six we should miss most of the traffic on the bridge.',
      'The kids loved the museum, especially the room with the dinosaurs.',
      'Honestly, I think the second version of the design was much cleaner.',
      'Did anyone order the cake for Maria, or do we still need to do that?',
      'They are closing the road for repairs from the first of next month.',
      'I only had a sandwich this morning, so I am starving now.',
      'The train was late again, twenty minutes this time, and nobody said why.',
      'We should ask the landlord about the window before winter starts.',
      'He plays football every Saturday, even when it is freezing outside.',
    ],
  },
  heldout: {
    talkers: [
      { voice: 'en-us+m7', pitch: 30, speed: 170 }, { voice: 'en-gb-scotland+f2', pitch: 62, speed: 155 },
      { voice: 'en-029+Alex', pitch: 48, speed: 185 }, { voice: 'en-us-nyc+Alicia', pitch: 72, speed: 165 },
      { voice: 'en-gb-x-gbclan+m8', pitch: 28, speed: 195 }, { voice: 'en-gb-x-gbcwmd+f4', pitch: 58, speed: 150 },
      { voice: 'en-us+max', pitch: 42, speed: 178 }, { voice: 'en-gb+steph', pitch: 68, speed: 160 },
    ],
    texts: [
      'The conference was fine, but the hotel was miles away from everything.',
      'Could you pass me the folder with the contracts from last year?',
      'We planted tomatoes in April and they are finally turning red.',
      'I heard the manager is leaving at the end of the summer.',
      'There is a long queue at the post office every single lunchtime.',
      'My phone died halfway through the call, so I never heard the end.',
      'The concert starts at half past seven, so let us eat before.',
      'Somebody left the fridge door open and all the milk went off.',
      'Apparently the bakery is giving away free bread on Saturday.',
      'I still have not finished the book you lent me in March.',
      'Our neighbours are building an extension and the noise is terrible.',
      'Let us book the restaurant for Friday before it gets busy.',
      'The bus driver waited for us, which was really kind of him.',
      'If the weather holds, we will walk along the coast tomorrow.',
      'He fixed the bike himself, although it took him three weekends.',
      'The quiz night raised almost four hundred pounds for the school.',
    ],
  },
};

export type Half = 'tune' | 'heldout';
export const HALVES: Half[] = ['tune', 'heldout'];
/** Seed of a half's noise and babble mixes (what mix() uses by default). */
export const noiseSeed = (half: Half) => HALF[half].noiseSeed;
/** Per half: the target track's text, voices and pause seed, and the seed of its noise and babble mixes. */
const HALF: Record<Half, { sentences: string[]; voices: string[]; seed: number; noiseSeed: number }> = {
  tune: { sentences: SENTENCES, voices: VOICES, seed: 1, noiseSeed: 99 },
  heldout: { sentences: HELDOUT_SENTENCES, voices: HELDOUT_VOICES, seed: 2, noiseSeed: 199 },
};

const AGENT_SENTENCES = [
  'Thank you for calling. I can help you with bookings, payments and deliveries today.',
  'Let me check that for you. Your current balance is one hundred and twenty dollars.',
  'I have found three available times next week: Monday at ten, Wednesday at two, and Friday at four.',
  'Before we continue, I need to confirm your identity with a few short security questions.',
];

/** Speech of one sentence (or paragraph) at rateHz (cached); pitch (-p) and speed (-s) optional. */
export function speak(text: string, voice: string, rateHz: number, talk?: { pitch: number; speed: number }): Int16Array {
  mkdirSync(CORPUS_DIR, { recursive: true });
  const key = talk
    ? createHash('sha1').update(`${voice}|${rateHz}|${talk.pitch}|${talk.speed}|${text}`).digest('base64url')
    : Buffer.from(`${voice}|${rateHz}|${text}`).toString('base64url').slice(0, 80);
  const raw = join(CORPUS_DIR, `${key}.raw`);
  if (!existsSync(raw)) {
    // Test files run in parallel and may ask for the same speech on a fresh clone: each writes
    // its own temporary files and renames the result into place, so no reader ever sees a file
    // half written (a truncated raw file failed a test file at load, once in CI).
    const tmp = join(CORPUS_DIR, `${key}.${process.pid}`);
    const prosody = talk ? ['-p', String(talk.pitch), '-s', String(talk.speed)] : [];
    execFileSync('espeak-ng', [...(text.includes('<break') ? ['-m'] : []), '-v', voice, ...prosody, '-w', `${tmp}.wav`, text]);
    execFileSync('sox', ['-R', ...(talk ? ['-v', '0.8'] : []), `${tmp}.wav`, '-t', 'raw', '-r', String(rateHz), '-e', 'signed', '-b', '16', '-c', '1', `${tmp}.raw`]);
    rmSync(`${tmp}.wav`);
    renameSync(`${tmp}.raw`, raw);
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

export interface Track { pcm: Float32Array; labels: Uint8Array; rateHz: number; onsetsMs: number[]; half?: Half }

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

/** The target speech of one corpus half (12 sentences, its own texts and voices). */
export function halfTrack(half: Half, rateHz: number): Track {
  const h = HALF[half];
  return { ...speechTrack(rateHz, h.seed, h.sentences.length, h.voices, h.sentences), half };
}

export function agentTrack(rateHz: number, seed = 7): Track {
  return speechTrack(rateHz, seed, AGENT_SENTENCES.length * 2, ['en-us+m1', 'en-gb+f1'], AGENT_SENTENCES);
}

export type NoiseKind = 'white' | 'pink' | 'brown' | 'hum' | 'babble';
/** Stationary noises (the original corpus). */
export const NOISE_KINDS: NoiseKind[] = ['white', 'pink', 'brown', 'hum'];
export const ALL_NOISE_KINDS: NoiseKind[] = [...NOISE_KINDS, 'babble'];

/**
 * Babble of one half: six of its eight talkers (seeded choice), each reading the half's pool of
 * texts in a seeded order with seeded 0.4-2.4 s pauses between sentences (one espeak-ng call,
 * SSML breaks), levelled to the same active power, +-3 dB seeded gains, circularly shifted by
 * a seeded offset and summed; unit RMS.
 */
export function babble(half: Half, n: number, rateHz: number, seed = HALF[half].noiseSeed): Float32Array {
  const r = rng(seed ^ 0x5eed);
  const { talkers, texts } = BABBLE[half];
  const shuffle = <T>(xs: T[]) => xs.map((x) => [r(), x] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
  const out = new Float32Array(n);
  for (const tk of shuffle(talkers).slice(0, BABBLE_TALKERS)) {
    const text = shuffle(texts).map((x) => `${x} <break time="${Math.round(400 + 2000 * r())}ms"/>`).join(' ');
    const pcm = Float32Array.from(speak(text, tk.voice, rateHz, tk));
    const p = activePower({ pcm, labels: labelFrames(pcm, rateHz), rateHz, onsetsMs: [] });
    const g = 10 ** ((6 * r() - 3) / 20) / Math.sqrt(p);
    const off = Math.floor(r() * pcm.length);
    for (let i = 0; i < n; i++) out[i] += g * pcm[(i + off) % pcm.length];
  }
  let e = 0;
  for (const v of out) e += v * v;
  const g = 1 / Math.sqrt(e / n);
  for (let i = 0; i < n; i++) out[i] *= g;
  return out;
}

/** Unit-RMS noise of a kind (independent TS implementations, seeded); babble is the given half's. */
export function noise(kind: NoiseKind, n: number, rateHz: number, seed = 99, half: Half = 'tune'): Float32Array {
  if (kind === 'babble') return babble(half, n, rateHz, seed);
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

/**
 * Music-like line noise, unit RMS: a beat at `bpm`, each beat striking a three-note chord of
 * harmonic tones that decay (a new chord every two beats, four chords round), over a quiet bass.
 */
export function musicLike(n: number, rateHz: number, bpm = 120, seed = 3): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  const beat = Math.round((60 / bpm) * rateHz);
  const root = 200 + 100 * r();
  const chords = [[1, 1.25, 1.5], [1.5, 1.89, 2.25], [1.68, 2, 2.52], [1.33, 1.68, 2]];
  for (let t0 = 0, b = 0; t0 < n; t0 += beat, b++) {
    const chord = chords[Math.floor(b / 2) % chords.length];
    for (let i = 0; i < beat && t0 + i < n; i++) {
      const env = Math.min(1, i / (0.005 * rateHz)) * Math.exp(-i / (0.25 * rateHz));
      let v = 0.3 * Math.sin((2 * Math.PI * root * 0.5 * (t0 + i)) / rateHz);
      for (const m of chord) {
        const ph = (2 * Math.PI * root * m * i) / rateHz;
        v += env * (Math.sin(ph) + 0.4 * Math.sin(2 * ph) + 0.2 * Math.sin(3 * ph));
      }
      out[t0 + i] = v;
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

/** Speech + noise at snrDb, as int16 (noise and babble of the track's half, seeded per half). */
export function mix(t: Track, kind: NoiseKind, snrDb: number, seed = HALF[t.half ?? 'tune'].noiseSeed): Int16Array {
  const nz = noise(kind, t.pcm.length, t.rateHz, seed, t.half ?? 'tune');
  const g = Math.sqrt(activePower(t) / 10 ** (snrDb / 10));
  return toInt16(t.pcm.map((v, i) => v + g * nz[i]));
}

export function toInt16(x: Float32Array): Int16Array {
  return Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));
}

/** Mean power of x over the frames where it is within 20 dB of its loudest frame (a talker's level). */
export function loudPower(x: Float32Array, rateHz: number): number {
  const fs = (rateHz * FRAME_MS) / 1000;
  const frames: number[] = [];
  for (let f = 0; (f + 1) * fs <= x.length; f++) {
    let e = 0;
    for (let i = f * fs; i < (f + 1) * fs; i++) e += x[i] * x[i];
    frames.push(e / fs);
  }
  const top = Math.max(...frames);
  const loud = frames.filter((e) => e >= top / 100);
  return loud.reduce((s, e) => s + e, 0) / loud.length;
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
