import { MediaChannel, Resampler, type PcmMessage } from './native.js';
import { FRAME_MS, type OutputQueue } from './output-queue.js';

/**
 * Until the conversation engine lands, a call plays the caller's audio back: the native
 * channel validates, frames and runs VAD on each message (one call), and a streaming
 * resampler brings each 20 ms frame to the output rate. Buffers are allocated here, once.
 */
export class EchoPipeline {
  private readonly channel: MediaChannel;
  private readonly resampler: Resampler | null;
  private readonly procFrameSamples: number;
  private readonly frame: Int16Array;

  constructor(readonly sampleRateIn: number, readonly sampleRateOut: number, maxMessageBytes = 65536) {
    this.channel = new MediaChannel({ inRateHz: sampleRateIn, procRateHz: sampleRateIn, refRateHz: sampleRateOut, frameMs: FRAME_MS, maxMessageBytes });
    this.procFrameSamples = this.channel.frameSamples;
    this.frame = new Int16Array(this.procFrameSamples);
    this.resampler =
      sampleRateIn === sampleRateOut ? null : new Resampler({ inRateHz: sampleRateIn, outRateHz: sampleRateOut, maxInputSamples: this.procFrameSamples });
  }

  /** Processes one caller message into `out`; throws NativeError on odd or oversized input. Returns frames in. */
  push(message: PcmMessage, out: OutputQueue): number {
    const frames = this.channel.process(message);
    const src = this.channel.output;
    const n = this.procFrameSamples;
    for (let f = 0; f < frames; f++) {
      const base = f * n;
      if (!this.resampler) {
        for (let i = 0; i < n; i++) this.frame[i] = src[base + i];
        out.write(this.frame, n);
        continue;
      }
      for (let i = 0; i < n; i++) this.frame[i] = src[base + i];
      const produced = this.resampler.process(this.frame);
      out.write(this.resampler.output, produced);
    }
    return frames;
  }

  /** Speech state of the caller, for control frames once turns exist. */
  get vadState() {
    return this.channel.vadState;
  }
}
