import { Framer, Resampler, Vad, type PcmMessage } from './native.js';
import { FRAME_MS, type OutputQueue } from './output-queue.js';

/**
 * Messages are fed to the native framer in pieces of at most this many bytes: the framer's
 * buffers are sized by it, so a 64 KiB message (allowed, rare) costs a few calls instead of
 * every call owning 64 KiB-sized buffers.
 */
export const CHUNK_BYTES = 2048;

/**
 * Until the conversation engine lands, a call plays the caller's audio back: the native
 * framer cuts each message into 20 ms frames, the VAD follows the caller's speech state,
 * and one streaming resampler call per message brings the frames to the output rate.
 * Every buffer and view is made here, once; push() allocates nothing for messages up to
 * CHUNK_BYTES.
 */
export class EchoPipeline {
  private readonly framer: Framer;
  private readonly vad: Vad;
  private readonly resampler: Resampler | null;
  private readonly frameSamples: number;
  /** frameViews[k]: frame k of the framer output; prefixViews[k]: its first k frames. */
  private readonly frameViews: Int16Array[] = [];
  private readonly prefixViews: Int16Array[] = [];
  /** Views of the resampler output by sample count, made on first use (a handful of sizes). */
  private readonly resampledViews: Int16Array[] = [];

  constructor(readonly sampleRateIn: number, readonly sampleRateOut: number) {
    this.framer = new Framer({ sampleRateHz: sampleRateIn, frameMs: FRAME_MS, maxMessageBytes: CHUNK_BYTES });
    this.vad = new Vad({ sampleRateHz: sampleRateIn, frameMs: FRAME_MS });
    this.frameSamples = this.framer.frameSamples;
    const maxFrames = Math.floor(this.framer.output.length / this.frameSamples);
    for (let k = 0; k <= maxFrames; k++) {
      this.frameViews.push(this.framer.output.subarray(k * this.frameSamples, (k + 1) * this.frameSamples));
      this.prefixViews.push(this.framer.output.subarray(0, k * this.frameSamples));
    }
    this.resampler =
      sampleRateIn === sampleRateOut
        ? null
        : new Resampler({ inRateHz: sampleRateIn, outRateHz: sampleRateOut, maxInputSamples: maxFrames * this.frameSamples });
  }

  /** Processes one caller message (even length) into `out`. Returns the 20 ms frames taken in. */
  push(message: PcmMessage, out: OutputQueue): number {
    const bytes = message.byteLength;
    if (bytes <= CHUNK_BYTES) return this.pushChunk(message, out);
    const buffer = message instanceof ArrayBuffer ? message : message.buffer;
    const base = message instanceof ArrayBuffer ? 0 : message.byteOffset;
    let frames = 0;
    for (let off = 0; off < bytes; off += CHUNK_BYTES) {
      frames += this.pushChunk(new Uint8Array(buffer, base + off, Math.min(CHUNK_BYTES, bytes - off)), out);
    }
    return frames;
  }

  private pushChunk(chunk: PcmMessage, out: OutputQueue): number {
    const frames = this.framer.push(chunk);
    if (frames === 0) return 0;
    for (let k = 0; k < frames; k++) this.vad.process(this.frameViews[k]);
    if (this.resampler) {
      const produced = this.resampler.process(this.prefixViews[frames]);
      const view = (this.resampledViews[produced] ??= this.resampler.output.subarray(0, produced));
      out.write(view, produced);
    } else {
      out.write(this.prefixViews[frames], frames * this.frameSamples);
    }
    return frames;
  }

  /** Speech state of the caller, for control frames once turns exist. */
  get vadState() {
    return this.vad.state;
  }
}
