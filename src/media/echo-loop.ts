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
 * Where the chains write their output, shared by every call of one output size in this
 * process: a push's samples are copied into the call's ring before any other push runs.
 * `views` are its first k whole output frames (0 .. the most one chunk can make), made once.
 * Indexed by frames, not samples: an array indexed by sample count is sparse (dictionary
 * elements, a slow keyed load on every message).
 */
interface SharedOutput {
  output: Int16Array;
  views: Int16Array[];
}

const sharedOutputs = new Map<string, SharedOutput>();

function sharedOutput(maxSamples: number, outFrameSamples: number): SharedOutput {
  const key = `${maxSamples}/${outFrameSamples}`;
  let shared = sharedOutputs.get(key);
  if (!shared) {
    const output = new Int16Array(maxSamples);
    const maxFrames = Math.floor(maxSamples / outFrameSamples);
    shared = { output, views: Array.from({ length: maxFrames + 1 }, (_, k) => output.subarray(0, k * outFrameSamples)) };
    sharedOutputs.set(key, shared);
  }
  return shared;
}

/**
 * The caller's audio on its way back, for EchoCall: one native call per message (EchoChain)
 * cuts it into 20 ms frames, runs the VAD on each and resamples them to the output rate; the
 * samples go straight into the call's output ring. Native state is one frame plus the
 * resampler's history (its filter table is shared by all calls of the same rates); the output
 * array is shared by all calls (3.8 KiB each at 24 kHz before). push() allocates nothing for
 * messages up to CHUNK_BYTES.
 */
export class EchoLoop {
  private readonly chain: EchoChain;
  private readonly output: Int16Array;
  private readonly views: Int16Array[];
  private readonly outFrameSamples: number;

  constructor(readonly sampleRateIn: number, readonly sampleRateOut: number) {
    this.chain = new EchoChain({ inRateHz: sampleRateIn, outRateHz: sampleRateOut, frameMs: FRAME_MS, maxMessageBytes: CHUNK_BYTES });
    this.outFrameSamples = (sampleRateOut * FRAME_MS) / 1000;
    ({ output: this.output, views: this.views } = sharedOutput(this.chain.maxOutputSamples, this.outFrameSamples));
  }

  /** Processes one caller message (even length) into `out`. Returns the 20 ms frames taken in. */
  push(message: PcmMessage, out: OutputQueue): number {
    if (message.byteLength <= CHUNK_BYTES) return this.pushChunk(message, out);
    return inChunks(message, CHUNK_BYTES, (chunk) => this.pushChunk(chunk, out));
  }

  private pushChunk(chunk: PcmMessage, out: OutputQueue): number {
    const produced = this.chain.pushInto(chunk, this.output);
    if (produced === 0) return this.chain.frames;
    // The supported rates resample each 20 ms frame to one whole output frame, so the frames
    // taken in are the frames out (no read of the chain's info array, cold on every message).
    const k = produced / this.outFrameSamples;
    if (k < this.views.length && Number.isInteger(k)) {
      out.write(this.views[k], produced);
      return k;
    }
    out.write(this.output.subarray(0, produced), produced);
    return this.chain.frames;
  }
}
