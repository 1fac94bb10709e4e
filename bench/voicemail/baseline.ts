// The named baseline: a naive Goertzel energy threshold, as beep detectors are often
// first written. Per 20 ms frame, Goertzel powers at 400..1,500 Hz every 50 Hz; a frame
// is "tone" when the strongest of them holds at least half the frame's energy and is
// above -45 dBFS. A run of 150 ms-2 s of tone frames whose strongest bin stays within
// one bin is a beep, reported at the first frame without tone (end = end of the run).
export class GoertzelThresholdBaseline {
  private readonly frame: number;
  private readonly coefs: Float64Array;
  private pos = 0;
  private runFrames = 0;
  private runBin = -1;

  constructor(private readonly rateHz: number) {
    this.frame = rateHz / 50;
    const n = Math.round((1500 - 400) / 50) + 1;
    this.coefs = Float64Array.from({ length: n }, (_, i) => 2 * Math.cos((2 * Math.PI * (400 + 50 * i)) / rateHz));
  }

  /** One 20 ms frame; returns the end (ms) of a beep that this frame confirmed, else null. */
  process(x: Int16Array): { endMs: number } | null {
    const n = this.frame;
    let energy = 0;
    for (let i = 0; i < n; i++) energy += x[i] * x[i];
    let best = -1, bestP = 0;
    for (let b = 0; b < this.coefs.length; b++) {
      const c = this.coefs[b];
      let s1 = 0, s2 = 0;
      for (let i = 0; i < n; i++) { const s0 = x[i] + c * s1 - s2; s2 = s1; s1 = s0; }
      const p = s1 * s1 + s2 * s2 - c * s1 * s2;
      if (p > bestP) { bestP = p; best = b; }
    }
    // A sine of amplitude A gives a Goertzel power of (A n / 2)^2 and a frame energy of A^2 n / 2.
    const share = energy > 0 ? (2 * bestP) / (n * energy) : 0;
    const amp = (2 * Math.sqrt(bestP)) / n;
    const tone = share >= 0.5 && amp >= 32767 * 10 ** (-45 / 20);
    const frameEndMs = ((this.pos += n) / this.rateHz) * 1000;
    if (tone && (this.runFrames === 0 || Math.abs(best - this.runBin) <= 1)) {
      if (this.runFrames === 0) this.runBin = best;
      this.runFrames++;
      return null;
    }
    const ms = this.runFrames * 20;
    this.runFrames = tone ? 1 : 0;
    this.runBin = best;
    return ms >= 150 && ms <= 2000 ? { endMs: frameEndMs - 20 } : null;
  }
}
