// Outgoing audio of one call: a ring of 20 ms frames at the output rate, preallocated once.
// Writers append samples of any count; the pacer sends whole frames through views that were
// created with the ring, so sending allocates nothing.

export const FRAME_MS = 20;

export class OutputQueue {
  readonly frameSamples: number;
  readonly capacityFrames: number;
  private readonly ring: Int16Array;
  /** One byte view per ring slot, handed to ws.send as is. */
  private readonly views: Uint8Array[];
  private writtenSamples = 0;
  private readFrames = 0;
  /** Frames dropped because the ring was full (the client could not keep up). */
  droppedFrames = 0;

  constructor(sampleRateHz: number, capacityMs = 500) {
    this.frameSamples = (sampleRateHz * FRAME_MS) / 1000;
    this.capacityFrames = Math.max(2, Math.ceil(capacityMs / FRAME_MS));
    this.ring = new Int16Array(this.frameSamples * this.capacityFrames);
    this.views = [];
    for (let i = 0; i < this.capacityFrames; i++) {
      this.views.push(new Uint8Array(this.ring.buffer, i * this.frameSamples * 2, this.frameSamples * 2));
    }
  }

  /** Complete frames waiting to be sent. */
  get readyFrames(): number {
    return Math.floor(this.writtenSamples / this.frameSamples) - this.readFrames;
  }

  /** Appends `count` samples from `src` (from index 0); the oldest frames give way when full. */
  write(src: Int16Array, count: number): void {
    const cap = this.ring.length;
    let w = this.writtenSamples % cap;
    if (count === src.length && w + count <= cap) {
      this.ring.set(src, w); // one memcpy: the usual case (whole frames, no wrap)
    } else {
      for (let i = 0; i < count; i++) {
        this.ring[w] = src[i];
        if (++w === cap) w = 0;
      }
    }
    this.writtenSamples += count;
    // Keep one slot free for the frame being filled.
    const excess = Math.ceil(this.writtenSamples / this.frameSamples) - this.readFrames - this.capacityFrames;
    if (excess > 0) {
      this.readFrames += excess;
      this.droppedFrames += excess;
    }
  }

  /** The next complete frame (a view valid until the ring wraps), or null. */
  peek(): Uint8Array | null {
    return this.readyFrames > 0 ? this.views[this.readFrames % this.capacityFrames] : null;
  }

  /** The next complete frame as samples (same memory as `peek`). */
  peekSamples(): Int16Array | null {
    if (this.readyFrames <= 0) return null;
    const start = (this.readFrames % this.capacityFrames) * this.frameSamples;
    return this.ring.subarray(start, start + this.frameSamples);
  }

  shift(): void {
    if (this.readyFrames > 0) this.readFrames++;
  }

  /** Drops every complete frame queued, counted as dropped (a backlog that would only play late). */
  clearCounted(): void {
    const ready = this.readyFrames;
    if (ready <= 0) return;
    this.readFrames += ready;
    this.droppedFrames += ready;
  }

  /** Drops everything queued (an interruption). */
  clear(): void {
    this.readFrames = Math.floor(this.writtenSamples / this.frameSamples);
  }
}
