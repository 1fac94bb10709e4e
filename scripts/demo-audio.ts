// Audio helpers of the offline demo: caller speech from espeak-ng (resampled to the call's
// rate with the native resampler) and the two-channel WAV of the call.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Resampler } from '../src/audio/native.js';
import { WavStripper } from '../src/providers/tts/pcm.js';

/** One sentence spoken by espeak-ng, as PCM16 mono at `rateHz`. */
export function synthesize(text: string, rateHz: number, voice = 'en-us', wordsPerMinute = 150): Int16Array {
  const r = spawnSync('espeak-ng', ['--stdout', '-v', voice, '-s', String(wordsPerMinute), text], { maxBuffer: 64 * 1024 * 1024 });
  if (r.error || r.status !== 0) throw new Error(`espeak-ng failed: ${r.error?.message ?? r.stderr.toString()}`);
  const wav = new WavStripper(false);
  const bytes = Buffer.from(wav.push(r.stdout));
  const from = wav.format?.sampleRateHz ?? 22050;
  const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
  if (from === rateHz) return pcm;
  const resampler = new Resampler({ inRateHz: from, outRateHz: rateHz, maxInputSamples: pcm.length });
  return resampler.output.slice(0, resampler.process(pcm));
}

/** A timeline of PCM pieces, each placed at a time (ms from the start of the call). */
export class Track {
  private readonly pieces: { atMs: number; pcm: Int16Array }[] = [];
  private endMs = 0;
  constructor(readonly rateHz: number) {}

  /** Places `pcm` at `atMs`, or right after the previous piece if that is still playing (a playout queue). */
  play(atMs: number, pcm: Int16Array): void {
    const at = Math.max(atMs, this.endMs);
    this.pieces.push({ atMs: at, pcm });
    this.endMs = at + (pcm.length * 1000) / this.rateHz;
  }

  get durationMs(): number {
    return this.endMs;
  }

  render(totalMs: number): Int16Array {
    const out = new Int16Array(Math.ceil((totalMs * this.rateHz) / 1000));
    for (const p of this.pieces) {
      const start = Math.round((p.atMs * this.rateHz) / 1000);
      out.set(p.pcm.subarray(0, Math.max(0, out.length - start)), start);
    }
    return out;
  }
}

/** 16-bit PCM stereo WAV: left and right interleaved. */
export function writeStereoWav(path: string, left: Int16Array, right: Int16Array, rateHz: number): void {
  const n = Math.max(left.length, right.length);
  const data = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    data.writeInt16LE(left[i] ?? 0, i * 4);
    data.writeInt16LE(right[i] ?? 0, i * 4 + 2);
  }
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVE', 8);
  h.write('fmt ', 12);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(2, 22); // channels
  h.writeUInt32LE(rateHz, 24);
  h.writeUInt32LE(rateHz * 4, 28); // byte rate
  h.writeUInt16LE(4, 32); // block align
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(data.length, 40);
  writeFileSync(path, Buffer.concat([h, data]));
}
