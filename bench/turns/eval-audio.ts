// Audio of the turn benchmark's evaluation set (bench/turns/eval-set.ts): espeak-ng speech
// with pitch and speed, levelled to an active level; background noises (white, pink, babble of
// eight espeak-ng talkers, street-like, music-like) as seeded loops of unit RMS; and the echo
// path a caller's handset and line put back into its microphone, which is not a linear copy:
// loudspeaker clipping, a 300-3,400 Hz band-pass, a μ-law round trip, and a delay and gain
// that drift during the call. Everything is deterministic (seeded); speech is cached on disk.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { noise as corpusNoise, rng } from '../../test/native/corpus.js';
import { MULAW_DECODE, mulawEncode } from '../media/mulaw.js';

const CACHE_DIR = join(process.cwd(), '.data', 'corpus', 'turns-eval');
export const FRAME_MS = 20;

export { rng };

/** espeak-ng speech at `rateHz` (sox resamples), pitch (-p 0-99) and speed (-s wpm); cached. */
export function synth(text: string, voice: string, rateHz: number, pitch = 50, speed = 175): Int16Array {
  mkdirSync(CACHE_DIR, { recursive: true });
  const key = createHash('sha1').update(`${voice}|${rateHz}|${pitch}|${speed}|${text}`).digest('base64url').slice(0, 27);
  const raw = join(CACHE_DIR, `${key}.raw`);
  if (!existsSync(raw)) {
    const wav = join(CACHE_DIR, `${key}.${process.pid}.wav`);
    execFileSync('espeak-ng', ['-v', voice, '-p', String(pitch), '-s', String(speed), '-w', wav, text], { stdio: 'pipe' });
    const tmp = `${raw}.${process.pid}`;
    execFileSync('sox', ['-R', wav, '-t', 'raw', '-r', String(rateHz), '-e', 'signed', '-b', '16', '-c', '1', tmp], { stdio: 'pipe' });
    renameSync(tmp, raw);
    execFileSync('rm', ['-f', wav]);
  }
  const b = readFileSync(raw);
  return new Int16Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** RMS level (dBFS) of each 20 ms frame. */
export function frameLevels(pcm: ArrayLike<number>, rateHz: number): Float64Array {
  const fs = (rateHz * FRAME_MS) / 1000;
  const n = Math.floor(pcm.length / fs);
  const out = new Float64Array(n);
  for (let f = 0; f < n; f++) {
    let e = 0;
    for (let i = 0; i < fs; i++) e += pcm[f * fs + i] ** 2;
    out[f] = 10 * Math.log10(e / fs / 32768 ** 2 + 1e-12);
  }
  return out;
}

/** Active speech level (dBFS): mean power of the frames within 35 dB of the loudest. */
export function activeLevel(pcm: ArrayLike<number>, rateHz: number): number {
  const db = frameLevels(pcm, rateHz);
  let peak = -200;
  for (const d of db) peak = Math.max(peak, d);
  let p = 0;
  let k = 0;
  for (const d of db) {
    if (d > peak - 35) {
      p += 10 ** (d / 10);
      k++;
    }
  }
  return 10 * Math.log10(p / Math.max(1, k) + 1e-12);
}

/** A caller's utterance ready to send: PCM at the line rate and where its speech is, by frame. */
export interface Utterance {
  pcm: Int16Array;
  /** First / last 20 ms frame whose level is within 20 dB of the active level (the onset and end of speech). */
  onsetFrame: number;
  endFrame: number;
  /** Pause sentences: the frames of the inserted pause [from, to). */
  pause?: { fromFrame: number; toFrame: number };
}

/** Leading and trailing samples below `abs` cut off. */
function trim(pcm: Float32Array, abs: number): Float32Array {
  let a = 0;
  let b = pcm.length;
  while (a < b && Math.abs(pcm[a]) < abs) a++;
  while (b > a && Math.abs(pcm[b - 1]) < abs) b--;
  return pcm.subarray(a, b);
}

function speechFrames(pcm: Int16Array, rateHz: number, levelDb: number): { onset: number; end: number } {
  const db = frameLevels(pcm, rateHz);
  let onset = -1;
  let end = -1;
  for (let f = 0; f < db.length; f++) {
    if (db[f] > levelDb - 20) {
      if (onset < 0) onset = f;
      end = f;
    }
  }
  return { onset: Math.max(0, onset), end: Math.max(0, end) };
}

/**
 * Speech of `parts` at `levelDbfs` active level (one gain for the whole utterance), leading and
 * trailing silence trimmed (the first frame sent is the acoustic start); parts are joined by
 * `pauseMs` of digital silence (the line adds its noise floor).
 */
export function utterance(parts: string[], voice: string, rateHz: number, pitch: number, speed: number, levelDbfs: number, pauseMs = 0): Utterance {
  const clips = parts.map((t) => Float32Array.from(synth(t, voice, rateHz, pitch, speed)));
  const joined = clips.map((c) => trim(c, 40));
  const pauseSamples = Math.round((pauseMs * rateHz) / 1000);
  const frame = (rateHz * FRAME_MS) / 1000;
  // The pause starts on a frame boundary so its frames are exact.
  const pads = joined.map((c, i) => (i < joined.length - 1 ? (frame - (c.length % frame)) % frame : 0));
  const total = joined.reduce((n, c, i) => n + c.length + pads[i], 0) + pauseSamples * (joined.length - 1);
  const f = new Float32Array(total);
  let o = 0;
  let pause: Utterance['pause'];
  for (const [i, c] of joined.entries()) {
    f.set(c, o);
    o += c.length + pads[i];
    if (i < joined.length - 1) {
      pause = { fromFrame: o / frame, toFrame: (o + pauseSamples) / frame };
      o += pauseSamples;
    }
  }
  const g = 10 ** ((levelDbfs - activeLevel(f, rateHz)) / 20);
  const pcm = Int16Array.from(f, (v) => Math.max(-32768, Math.min(32767, Math.round(v * g))));
  const { onset, end } = speechFrames(pcm, rateHz, levelDbfs);
  return { pcm, onsetFrame: onset, endFrame: end, pause };
}

// ---------------------------------------------------------------- noises

export type NoiseKind = 'white' | 'pink' | 'babble' | 'street' | 'music';
export const NOISE_KINDS: NoiseKind[] = ['white', 'pink', 'babble', 'street', 'music'];

function unitRms(x: Float32Array): Float32Array {
  let e = 0;
  for (const v of x) e += v * v;
  const g = 1 / Math.sqrt(e / x.length + 1e-20);
  for (let i = 0; i < x.length; i++) x[i] *= g;
  return x;
}

/** One-pole low-pass coefficient for a cutoff. */
const onePole = (hz: number, rateHz: number) => 1 - Math.exp((-2 * Math.PI * hz) / rateHz);

/** Babble talker: voice, pitch, speed, and the texts it reads (one paragraph). */
export interface Talker {
  voice: string;
  pitch: number;
  speed: number;
}

/** Several espeak-ng talkers at once, each levelled to the same active power, +-3 dB, seeded offsets. */
export function babble(talkers: Talker[], texts: string[], n: number, rateHz: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  for (const tk of talkers) {
    const order = texts.map((x) => [r(), x] as const).sort((a, b) => a[0] - b[0]).map((x) => x[1]);
    const pcm = Float32Array.from(synth(order.join(' '), tk.voice, rateHz, tk.pitch, tk.speed));
    const g = 10 ** ((6 * r() - 3 - activeLevel(pcm, rateHz)) / 20);
    const off = Math.floor(r() * pcm.length);
    for (let i = 0; i < n; i++) out[i] += g * pcm[(i + off) % pcm.length];
  }
  return unitRms(out);
}

/**
 * Street-like: traffic rumble (noise low-passed at ~250 Hz, with passing vehicles swelling it
 * by up to 10 dB for 2-5 s), a hiss bed, and transients (door slams, footsteps, clatter:
 * 20-150 ms bursts of band-limited noise decaying fast, 6-18 dB over the bed) every 0.4-3 s,
 * with an occasional two-tone horn. `horns` receives each horn's [start, end) in samples.
 */
export function street(n: number, rateHz: number, seed: number, horns?: [number, number][]): Float32Array {
  const r = rng(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const out = new Float32Array(n);
  const a1 = onePole(250, rateHz);
  let lp1 = 0;
  let lp2 = 0;
  // Vehicles: a list of swells.
  const swells: { at: number; len: number; gain: number }[] = [];
  for (let t = 0; t < n; t += Math.floor(rateHz * (2 + 5 * r()))) swells.push({ at: t, len: Math.floor(rateHz * (2 + 3 * r())), gain: 10 ** ((4 + 6 * r()) / 20) });
  for (let i = 0; i < n; i++) {
    lp1 += a1 * (gauss() - lp1);
    lp2 += a1 * (lp1 - lp2);
    let env = 1;
    for (const s of swells) if (i >= s.at && i < s.at + s.len) env = Math.max(env, 1 + (s.gain - 1) * Math.sin((Math.PI * (i - s.at)) / s.len));
    out[i] = 6 * lp2 * env + 0.08 * gauss();
  }
  const bedRms = Math.sqrt(out.reduce((e, v) => e + v * v, 0) / n);
  // Transients.
  for (let t = Math.floor(rateHz * r()); t < n; t += Math.floor(rateHz * (0.4 + 2.6 * r()))) {
    const len = Math.floor(rateHz * (0.02 + 0.13 * r()));
    const amp = bedRms * 10 ** ((6 + 12 * r()) / 20) * 2;
    const cut = onePole(800 + 3000 * r(), rateHz);
    let lp = 0;
    const tau = len / 4;
    for (let i = 0; i < len && t + i < n; i++) {
      lp += cut * (gauss() - lp);
      out[t + i] += amp * lp * Math.exp(-i / tau);
    }
    if (r() < 0.08) {
      // a horn: 0.3-0.6 s of two tones
      const hl = Math.floor(rateHz * (0.3 + 0.3 * r()));
      horns?.push([t, Math.min(n, t + hl)]);
      const f1 = 380 + 80 * r();
      for (let i = 0; i < hl && t + i < n; i++) {
        const s = Math.sin((2 * Math.PI * f1 * i) / rateHz) + 0.8 * Math.sin((2 * Math.PI * f1 * 1.26 * i) / rateHz);
        out[t + i] += bedRms * 2 * Math.sign(s) * Math.min(1, Math.abs(s)) * Math.min(1, i / (0.02 * rateHz), (hl - i) / (0.02 * rateHz));
      }
    }
  }
  return unitRms(out);
}

/**
 * Music-like: 112-128 bpm, a four-chord progression (two beats per chord) of plucked
 * harmonic tones (three chord notes and a bass note, each struck on every beat and decaying),
 * a kick on beats 1 and 3 and a hi-hat on the off-beats.
 */
export function music(n: number, rateHz: number, seed: number): Float32Array {
  const r = rng(seed);
  const out = new Float32Array(n);
  const bpm = 112 + Math.floor(16 * r());
  const beat = Math.floor((rateHz * 60) / bpm);
  const midi = (m: number) => 440 * 2 ** ((m - 69) / 12);
  // I-V-vi-IV in a seeded key.
  const key = 55 + Math.floor(10 * r());
  const chords = [
    [0, 4, 7],
    [7, 11, 14],
    [9, 12, 16],
    [5, 9, 12],
  ];
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const hp = onePole(5000, rateHz);
  for (let b = 0; b * beat < n; b++) {
    const t0 = b * beat;
    const chord = chords[Math.floor(b / 2) % chords.length];
    const notes = [...chord.map((c) => midi(key + c)), midi(key + chord[0] - 24)];
    for (const [k, f] of notes.entries()) {
      const amp = k === 3 ? 0.9 : 0.5;
      const tau = rateHz * (k === 3 ? 0.45 : 0.3);
      for (let i = 0; i < beat && t0 + i < n; i++) {
        const ph = (2 * Math.PI * f * i) / rateHz;
        const env = Math.min(1, i / (0.008 * rateHz)) * Math.exp(-i / tau);
        out[t0 + i] += amp * env * (Math.sin(ph) + 0.5 * Math.sin(2 * ph) + 0.25 * Math.sin(3 * ph));
      }
    }
    if (b % 2 === 0) {
      // kick: a falling sine burst
      for (let i = 0; i < 0.15 * rateHz && t0 + i < n; i++) {
        const f = 50 + 90 * Math.exp(-i / (0.03 * rateHz));
        out[t0 + i] += 1.5 * Math.exp(-i / (0.05 * rateHz)) * Math.sin((2 * Math.PI * f * i) / rateHz);
      }
    }
    // hi-hat on the off-beat: high-passed noise, 40 ms
    let lp = 0;
    const h0 = t0 + Math.floor(beat / 2);
    for (let i = 0; i < 0.04 * rateHz && h0 + i < n; i++) {
      const w = gauss();
      lp += hp * (w - lp);
      out[h0 + i] += 0.25 * (w - lp) * Math.exp(-i / (0.01 * rateHz));
    }
  }
  return unitRms(out);
}

/** A loop of unit-RMS noise of a kind; babble needs its talkers and texts. */
export function noiseLoop(kind: NoiseKind, n: number, rateHz: number, seed: number, babbleOf?: { talkers: Talker[]; texts: string[] }): Float32Array {
  switch (kind) {
    case 'white':
    case 'pink':
      return corpusNoise(kind, n, rateHz, seed);
    case 'babble':
      return babble(babbleOf!.talkers, babbleOf!.texts, n, rateHz, seed);
    case 'street':
      return street(n, rateHz, seed);
    case 'music':
      return music(n, rateHz, seed);
  }
}

/** Plays a unit-RMS loop at a level, one frame at a time, from a seeded offset. */
export class NoiseSource {
  private off: number;
  private readonly gain: number;
  constructor(private readonly loop: Float32Array, levelDbfs: number, seed: number) {
    this.gain = 32768 * 10 ** (levelDbfs / 20);
    this.off = Math.floor(rng(seed)() * loop.length);
  }
  /** Adds the next `out.length` samples. */
  addTo(out: Float32Array): void {
    const u = this.loop;
    for (let i = 0; i < out.length; i++) {
      out[i] += u[this.off] * this.gain;
      if (++this.off === u.length) this.off = 0;
    }
  }
}

// ---------------------------------------------------------------- echo path

export interface EchoSpec {
  /** Echo return loss: the echo is this many dB below what the caller's loudspeaker played (6-40). */
  erlDb: number;
  /** Acoustic and line delay after playout, ms (20-400). */
  delayMs: number;
  /** The loudspeaker clips: peaks above -12 dBFS are flattened before the room. */
  clip: boolean;
  /** The handset and line: 300-3,400 Hz band-pass (4th order each side). */
  bandpass: boolean;
  /** The echo comes back through a G.711 μ-law encode/decode. */
  mulaw: boolean;
  /**
   * The path changes during the call: delay drifts +-30 ms (period 17-29 s; on paths shorter than
   * 31 ms, down to 1 ms and back), gain +-6 dB (period 11-23 s).
   */
  drift: boolean;
}

/** RBJ biquad, direct form I. */
class Biquad {
  private x1 = 0;
  private x2 = 0;
  private y1 = 0;
  private y2 = 0;
  private readonly b0: number;
  private readonly b1: number;
  private readonly b2: number;
  private readonly a1: number;
  private readonly a2: number;
  constructor(kind: 'lp' | 'hp', hz: number, rateHz: number, q = Math.SQRT1_2) {
    const w = (2 * Math.PI * Math.min(hz, rateHz * 0.45)) / rateHz;
    const alpha = Math.sin(w) / (2 * q);
    const cos = Math.cos(w);
    const a0 = 1 + alpha;
    const b = kind === 'lp' ? [(1 - cos) / 2, 1 - cos, (1 - cos) / 2] : [(1 + cos) / 2, -(1 + cos), (1 + cos) / 2];
    this.b0 = b[0] / a0;
    this.b1 = b[1] / a0;
    this.b2 = b[2] / a0;
    this.a1 = (-2 * cos) / a0;
    this.a2 = (1 - alpha) / a0;
  }
  run(x: number): number {
    const y = this.b0 * x + this.b1 * this.x1 + this.b2 * this.x2 - this.a1 * this.y1 - this.a2 * this.y2;
    this.x2 = this.x1;
    this.x1 = x;
    this.y2 = this.y1;
    this.y1 = y;
    return y;
  }
}

const CLIP_LEVEL = 32768 * 10 ** (-12 / 20);

/**
 * The caller's handset: what it plays (one frame per microphone frame, silence when nothing
 * arrived) comes back into the microphone through `spec`'s path.
 */
export class EchoPath {
  private readonly line: Float32Array;
  private pos = 0;
  private n = 0;
  private readonly gain: number;
  private readonly delay: number;
  private readonly filters: Biquad[];
  private readonly drift: { delayAmp: number; delayPeriod: number; gainPeriod: number; phase: number } | null;
  private y = new Float32Array(0);
  private lin = new Int16Array(0);
  private law = new Uint8Array(0);

  constructor(readonly spec: EchoSpec, rateHz: number, seed: number) {
    const r = rng(seed);
    this.gain = 10 ** (-spec.erlDb / 20);
    this.delay = (spec.delayMs * rateHz) / 1000;
    // A delay that drifted under 0 read the line's ring ahead of its writer: the agent's words of
    // about a second before, an echo no path makes (the sweep's 25 ms drifting line: 8 false
    // interruptions per 11.7 min, all of them this).
    this.drift = spec.drift ? { delayAmp: (Math.min(30, spec.delayMs - 1) * rateHz) / 1000, delayPeriod: rateHz * (17 + 12 * r()), gainPeriod: rateHz * (11 + 12 * r()), phase: 2 * Math.PI * r() } : null;
    const maxDelay = this.delay + (this.drift?.delayAmp ?? 0) + 4;
    this.line = new Float32Array(Math.ceil(maxDelay) + rateHz);
    this.filters = spec.bandpass
      ? [new Biquad('hp', 300, rateHz), new Biquad('hp', 300, rateHz), new Biquad('lp', 3400, rateHz), new Biquad('lp', 3400, rateHz)]
      : [];
  }

  /** `played` (what the loudspeaker plays during this frame) in; the echo it causes added to `mic`. */
  process(played: ArrayLike<number>, mic: Float32Array): void {
    const L = this.line.length;
    const n = mic.length;
    if (this.y.length !== n) {
      this.y = new Float32Array(n);
      this.lin = new Int16Array(n);
      this.law = new Uint8Array(n);
    }
    const y = this.y;
    // The gain drifts slowly: one value per frame; the delay per sample (no clicks).
    let g = this.gain;
    if (this.drift) g *= 10 ** ((6 * Math.sin((2 * Math.PI * this.n) / this.drift.gainPeriod)) / 20);
    for (let i = 0; i < n; i++) {
      let x = i < played.length ? played[i] : 0;
      if (this.spec.clip) x = Math.max(-CLIP_LEVEL, Math.min(CLIP_LEVEL, x));
      this.line[this.pos] = x;
      const d = this.drift ? this.delay + this.drift.delayAmp * Math.sin((2 * Math.PI * (this.n + i)) / this.drift.delayPeriod + this.drift.phase) : this.delay;
      // Fractional delay: linear interpolation between the two samples around `pos - d`.
      const at = this.pos - d;
      const i0 = Math.floor(at);
      const frac = at - i0;
      const s0 = this.line[((i0 % L) + L) % L];
      const s1 = this.line[(((i0 + 1) % L) + L) % L];
      let v = (s0 + frac * (s1 - s0)) * g;
      for (const f of this.filters) v = f.run(v);
      y[i] = v;
      this.pos = (this.pos + 1) % L;
    }
    this.n += n;
    if (this.spec.mulaw) {
      for (let i = 0; i < n; i++) this.lin[i] = Math.max(-32768, Math.min(32767, Math.round(y[i])));
      mulawEncode(this.lin, this.law);
      for (let i = 0; i < n; i++) mic[i] += MULAW_DECODE[this.law[i]];
    } else for (let i = 0; i < n; i++) mic[i] += y[i];
  }
}
