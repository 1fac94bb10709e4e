import { StreamResampler } from './resample.js';

// Microphone → 16 kHz PCM16 in 20 ms frames (320 samples), posted to the main thread with the
// frame's RMS level. Muting sends silence (the call keeps its timing).

const OUT_RATE = 16000;
const FRAME = OUT_RATE / 50;

class CaptureProcessor extends AudioWorkletProcessor {
  private readonly resampler = new StreamResampler(sampleRate, OUT_RATE);
  private frame = new Int16Array(FRAME);
  private at = 0;
  private sumSq = 0;
  private muted = false;

  constructor() {
    super();
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
      if (this.at === FRAME) {
        const level = Math.sqrt(this.sumSq / FRAME);
        this.port.postMessage({ type: 'frame', pcm: this.frame, level }, [this.frame.buffer]);
        this.frame = new Int16Array(FRAME);
        this.at = 0;
        this.sumSq = 0;
      }
    });
    return true;
  }
}

registerProcessor('voice-capture', CaptureProcessor);
