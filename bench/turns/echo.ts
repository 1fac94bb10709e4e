// A constant-delay echo path: what a handset's loudspeaker puts back into its microphone.
import { Resampler } from '../../src/audio/native.js';
import { RATE_IN_HZ, RATE_OUT_HZ, type EchoPath } from './scenarios.js';

const FRAME_SAMPLES = RATE_IN_HZ / 50;
const OUT_FRAME_SAMPLES = RATE_OUT_HZ / 50;

/** A handset: received frames play at real time (silence on underrun); the room echoes them after a fixed delay. */
export class PlayoutEcho {
  private readonly queue: Int16Array[] = [];
  private readonly resampler = new Resampler({ inRateHz: RATE_OUT_HZ, outRateHz: RATE_IN_HZ, maxInputSamples: OUT_FRAME_SAMPLES });
  private readonly line: Float32Array;
  private pos = 0;
  private readonly gain: number;
  private lp = 0;
  private readonly silence = new Int16Array(OUT_FRAME_SAMPLES);
  private pending = new Float32Array(0);

  constructor(p: EchoPath) {
    this.gain = 10 ** (-p.attenuationDb / 20);
    this.line = new Float32Array(Math.max(FRAME_SAMPLES, Math.round((p.delayMs * RATE_IN_HZ) / 1000)));
  }

  received(pcm: Int16Array): void {
    this.queue.push(pcm);
  }

  /** The echo for the next microphone frame (the frame played now goes into the delay line). */
  next(): Float32Array {
    const played = this.queue.shift() ?? this.silence;
    const n = this.resampler.process(played);
    const got = new Float32Array(this.pending.length + n);
    got.set(this.pending);
    for (let i = 0; i < n; i++) got[this.pending.length + i] = this.resampler.output[i];
    const take = Math.min(FRAME_SAMPLES, got.length);
    this.pending = got.slice(take);
    const out = new Float32Array(FRAME_SAMPLES);
    for (let i = 0; i < FRAME_SAMPLES; i++) {
      const x = i < take ? got[i] : 0;
      // Delay line: read the sample written `line.length` samples ago, then write the new one.
      const delayed = this.line[this.pos];
      this.line[this.pos] = x;
      this.pos = (this.pos + 1) % this.line.length;
      this.lp += 0.6 * (delayed - this.lp); // handset and room: a little low-pass
      out[i] = this.lp * this.gain;
    }
    return out;
  }
}

