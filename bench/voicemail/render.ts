// Renders a clip (clips.ts) at 8 or 16 kHz: segments back to back, espeak-ng speech
// (resampled by sox, cached under .data/corpus), tones synthesised here, seeded noise
// over the whole clip. The '8k-mulaw' path is the 8 kHz render through a G.711 μ-law
// encode and decode, as a phone carrier delivers it.
import { G711 } from '../../src/audio/native.js';
import { noise, speak, toInt16 } from '../../test/native/corpus.js';
import type { Clip, Envelope, Partial } from './clips.js';

export type AudioPath = '16k' | '8k' | '8k-mulaw';
export const PATHS: AudioPath[] = ['16k', '8k', '8k-mulaw'];
export const pathRate = (p: AudioPath) => (p === '16k' ? 16000 : 8000);

export interface Rendered {
  pcm: Int16Array;
  rateHz: number;
  /** The beep's true start and end (ms), positives only. */
  beep?: { startMs: number; endMs: number };
}

const FULL = 32767;

function tone(n: number, rateHz: number, partials: Partial[], levelDbfs: number, rampMs: number, env: Envelope): Float32Array {
  const out = new Float32Array(n);
  const a = FULL * 10 ** (levelDbfs / 20);
  const ramp = Math.max(1, Math.round((rateHz * rampMs) / 1000));
  const phase = new Float64Array(partials.length);
  for (let i = 0; i < n; i++) {
    const t = i / rateHz;
    // bowed: 5.5 Hz vibrato of +-0.6 % and a slow attack; pluck: fast attack, exponential decay.
    const vib = env === 'bowed' ? 1 + 0.006 * Math.sin(2 * Math.PI * 5.5 * t) : 1;
    let v = 0;
    for (let k = 0; k < partials.length; k++) {
      phase[k] += (2 * Math.PI * partials[k].hz * vib) / rateHz;
      v += partials[k].amp * Math.sin(phase[k]);
    }
    let g = 1;
    if (env === 'pluck') g = Math.exp(-t / Math.max(0.15, (n / rateHz) * 0.4));
    const attack = env === 'bowed' ? Math.round(rateHz * 0.08) : ramp;
    if (i < attack) g *= 0.5 - 0.5 * Math.cos((Math.PI * i) / attack);
    if (n - i < ramp) g *= 0.5 - 0.5 * Math.cos((Math.PI * (n - i)) / ramp);
    out[i] = a * g * v;
  }
  return out;
}

export function render(clip: Clip, path: AudioPath): Rendered {
  const rateHz = pathRate(path);
  const parts: Float32Array[] = [];
  let len = 0;
  let beep: Rendered['beep'];
  for (const s of clip.segments) {
    let p: Float32Array;
    if (s.kind === 'gap') p = new Float32Array(Math.round((rateHz * s.ms) / 1000));
    else if (s.kind === 'speech') {
      const g = 10 ** (s.gainDb / 20);
      p = Float32Array.from(speak(s.text, s.voice, rateHz, { pitch: s.pitch, speed: s.speed }), (v) => v * g);
    } else {
      p = tone(Math.round((rateHz * s.ms) / 1000), rateHz, s.partials, s.levelDbfs, s.rampMs, s.envelope);
      if (s.beep) beep = { startMs: (len / rateHz) * 1000, endMs: ((len + p.length) / rateHz) * 1000 };
    }
    parts.push(p);
    len += p.length;
  }
  const x = new Float32Array(len);
  let o = 0;
  for (const p of parts) { x.set(p, o); o += p.length; }
  if (clip.noise.levelDbfs > -150) {
    // Unit-RMS noise scaled so that its power re a full-scale sine's (FULL^2/2) is levelDbfs.
    const nz = noise(clip.noise.kind, len, rateHz, clip.noise.seed);
    const g = (FULL / Math.SQRT2) * 10 ** (clip.noise.levelDbfs / 20);
    for (let i = 0; i < len; i++) x[i] += g * nz[i];
  }
  let pcm = toInt16(x);
  if (path === '8k-mulaw') pcm = G711.mulawDecode(G711.mulawEncode(pcm));
  return { pcm, rateHz, beep };
}
