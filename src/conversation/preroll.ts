// The caller's audio from just before a barge-in. While the microphone only carries the
// agent's echo it is withheld from the recognizer, but its last stretch is kept here, so that
// when the caller turns out to be speaking the recognizer still hears the first syllables.

export class Preroll {
  private readonly chunks: Int16Array[] = [];
  private samples = 0;
  private readonly maxSamples: number;

  constructor(private readonly rateHz: number, ms: number) {
    this.maxSamples = (rateHz * ms) / 1000;
  }

  /** Keeps a copy of `pcm`; the oldest chunks go while the rest still spans the preroll. */
  keep(pcm: Int16Array): void {
    this.chunks.push(pcm.slice());
    this.samples += pcm.length;
    while (this.chunks.length > 1 && this.samples - this.chunks[0].length >= this.maxSamples) this.samples -= this.chunks.shift()!.length;
  }

  /** Hands the kept audio (only its last `lastMs` when given) to `send`, oldest first, and forgets it. */
  flush(send: (pcm: Int16Array) => void, lastMs?: number): void {
    let skip = lastMs === undefined ? 0 : Math.max(0, this.samples - Math.round((this.rateHz * lastMs) / 1000));
    for (const c of this.chunks) {
      if (skip >= c.length) {
        skip -= c.length;
        continue;
      }
      send(skip > 0 ? c.subarray(skip) : c);
      skip = 0;
    }
    this.clear();
  }

  clear(): void {
    this.chunks.length = 0;
    this.samples = 0;
  }
}
