import { StreamResampler } from './resample.js';

// Microphone → PCM16 at the session's sample_rate_in (processorOptions.outRate, default 16 kHz)
// in 20 ms frames, posted to the main thread with the frame's RMS level. Muting sends silence
// (the call keeps its timing).

const DEFAULT_OUT_RATE = 16000;

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly resampler: StreamResampler;
  private readonly frameLength: number;
  private frame: Int16Array;
  private at = 0;
  private sumSq = 0;
  private muted = false;

  constructor(options?: ProcessorOptions) {
    super(options);
    const outRate = options?.processorOptions?.outRate ?? DEFAULT_OUT_RATE;
    this.resampler = new StreamResampler(sampleRate, outRate);
    this.frameLength = outRate / 50;
    this.frame = new Int16Array(this.frameLength);
    this.port.onmessage = (ev: MessageEvent<{ type: 'mute'; muted: boolean }>) => {
      if (ev.data.type === 'mute') this.muted = ev.data.muted;
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const channel = inputs[0]?.[0];
    if (!channel) return true;
    this.resampler.process(channel, (s) => {
      const v = this.muted ? 0 : Math.max(-1, Math.min(1, s));
      this.frame[this.at++] = Math.round(v * 32767);
      this.sumSq += v * v;
      if (this.at === this.frameLength) {
        const level = Math.sqrt(this.sumSq / this.frameLength);
        this.port.postMessage({ type: 'frame', pcm: this.frame, level }, [this.frame.buffer]);
        this.frame = new Int16Array(this.frameLength);
        this.at = 0;
        this.sumSq = 0;
      }
    });
    return true;
  }
}

registerProcessor('voice-capture', CaptureProcessor);
