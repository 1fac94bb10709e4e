import { StreamResampler } from './resample.js';

// PCM16 from the server at the session's sample_rate_out (processorOptions.inRate, default
// 24 kHz) → the output at the context's rate, through a jitter buffer:
// playback starts (and restarts after running dry) once PREROLL_MS is queued, inside the
// 60–100 ms band. `flush` empties the queue; the next render quantum (128 frames) is silent.
// Every LEVEL_QUANTA quanta the output RMS is posted (input to level meters and tests).

const DEFAULT_IN_RATE = 24000;
const PREROLL_MS = 80;
const LEVEL_QUANTA = 4;

class PlaybackProcessor extends AudioWorkletProcessor {
  private readonly resampler: StreamResampler;
  /** Queued output-rate samples, as a list of chunks. */
  private chunks: Float32Array[] = [];
  private head = 0;
  private queued = 0;
  private playing = false;
  private readonly preroll = Math.round((sampleRate * PREROLL_MS) / 1000);
  private quanta = 0;
  private sumSq = 0;
  private count = 0;

  constructor(options?: ProcessorOptions) {
    super(options);
    this.resampler = new StreamResampler(options?.processorOptions?.inRate ?? DEFAULT_IN_RATE, sampleRate);
    this.port.onmessage = (ev: MessageEvent<{ type: 'audio'; pcm: Int16Array } | { type: 'flush' }>) => {
      const msg = ev.data;
      if (msg.type === 'flush') {
        const droppedMs = Math.round((this.queued / sampleRate) * 1000);
        this.chunks = [];
        this.head = 0;
        this.queued = 0;
        this.playing = false;
        this.port.postMessage({ type: 'flushed', droppedMs });
        return;
      }
      const out: number[] = [];
      const floats = new Float32Array(msg.pcm.length);
      for (let i = 0; i < msg.pcm.length; i++) floats[i] = msg.pcm[i] / 32768;
      this.resampler.process(floats, (s) => out.push(s));
      this.chunks.push(Float32Array.from(out));
      this.queued += out.length;
    };
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const output = outputs[0];
    const first = output[0];
    if (!this.playing && this.queued >= this.preroll) this.playing = true;
    for (let i = 0; i < first.length; i++) {
      let s = 0;
      if (this.playing && this.queued > 0) {
        const chunk = this.chunks[0];
        s = chunk[this.head++];
        this.queued--;
        if (this.head === chunk.length) {
          this.chunks.shift();
          this.head = 0;
        }
      } else if (this.playing) this.playing = false; // ran dry: wait for the pre-roll again
      for (const channel of output) channel[i] = s;
      this.sumSq += s * s;
      this.count++;
    }
    if (++this.quanta % LEVEL_QUANTA === 0) {
      this.port.postMessage({ type: 'level', level: Math.sqrt(this.sumSq / this.count), bufferedMs: (this.queued / sampleRate) * 1000 });
      this.sumSq = 0;
      this.count = 0;
    }
    return true;
  }
}

registerProcessor('voice-playback', PlaybackProcessor);
