import { EchoChain, type PcmMessage } from '../audio/native.js';
import { FRAME_MS, type OutputQueue } from './output-queue.js';
import { inChunks } from '../audio/input-chunks.js';

/**
 * Messages are fed to the native chain in pieces of at most this many bytes: its output
 * array is sized by it, so a 64 KiB message (allowed, rare) costs a few calls instead of
 * every call owning 64 KiB-sized buffers.
 */
const CHUNK_BYTES = 2048;

/**
 * The caller's audio on its way back, for EchoCall: one native call per message (EchoChain)
 * cuts it into 20 ms frames, runs the VAD on each and resamples them to the output rate; the
 * samples go straight into the call's output ring. Native state is one frame plus the
 * resampler's history (its filter table is shared by all calls of the same rates). push()
 * allocates nothing for messages up to CHUNK_BYTES.
 */
export class EchoLoop {
  private readonly chain: EchoChain;
  /**
   * Views of the chain's output by whole output frames produced (0 .. the most one chunk can
   * make), made once. Indexed by frames, not samples: an array indexed by sample count is
   * sparse (dictionary elements, a slow keyed load on every message).
   */
  private readonly views: Int16Array[];
  private readonly outFrameSamples: number;

  constructor(readonly sampleRateIn: number, readonly sampleRateOut: number) {
    this.chain = new EchoChain({ inRateHz: sampleRateIn, outRateHz: sampleRateOut, frameMs: FRAME_MS, maxMessageBytes: CHUNK_BYTES });
    this.outFrameSamples = (sampleRateOut * FRAME_MS) / 1000;
    const maxFrames = Math.floor(this.chain.output.length / this.outFrameSamples);
    this.views = Array.from({ length: maxFrames + 1 }, (_, k) => this.chain.output.subarray(0, k * this.outFrameSamples));
  }

  /** Processes one caller message (even length) into `out`. Returns the 20 ms frames taken in. */
  push(message: PcmMessage, out: OutputQueue): number {
    if (message.byteLength <= CHUNK_BYTES) return this.pushChunk(message, out);
    return inChunks(message, CHUNK_BYTES, (chunk) => this.pushChunk(chunk, out));
  }

  private pushChunk(chunk: PcmMessage, out: OutputQueue): number {
    const produced = this.chain.push(chunk);
    if (produced === 0) return this.chain.frames;
    // The supported rates resample each 20 ms frame to one whole output frame, so the frames
    // taken in are the frames out (no read of the chain's info array, cold on every message).
    const k = produced / this.outFrameSamples;
    if (k < this.views.length && Number.isInteger(k)) {
      out.write(this.views[k], produced);
      return k;
    }
    out.write(this.chain.output.subarray(0, produced), produced);
    return this.chain.frames;
  }
}
