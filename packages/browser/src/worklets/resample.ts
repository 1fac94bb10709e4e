// A streaming resampler for the worklets: a box filter as wide as the input step (an
// anti-alias low-pass when reducing the rate) and linear interpolation between its outputs.
// Speech recognisers and ears both take it well at 16 and 24 kHz.

export class StreamResampler {
  private readonly step: number;
  private pos = 0;
  private prev = 0;
  private readonly taps: number;
  private readonly history: Float32Array;
  private hAt = 0;
  private hSum = 0;

  constructor(inRate: number, outRate: number) {
    this.step = inRate / outRate;
    this.taps = Math.max(1, Math.round(this.step));
    this.history = new Float32Array(this.taps);
  }

  /** Resamples `input`, appending to `out`; returns how many samples were appended. */
  process(input: Float32Array, out: (sample: number) => void): void {
    for (let i = 0; i < input.length; i++) {
      // Running mean over the last `taps` samples.
      this.hSum += input[i] - this.history[this.hAt];
      this.history[this.hAt] = input[i];
      this.hAt = (this.hAt + 1) % this.taps;
      const cur = this.hSum / this.taps;
      // Emit every output sample that falls between the previous input sample and this one.
      while (this.pos <= 1) {
        out(this.prev + (cur - this.prev) * this.pos);
        this.pos += this.step;
      }
      this.pos -= 1;
      this.prev = cur;
    }
  }
}
