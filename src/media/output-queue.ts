// Outgoing audio of one call: a ring of 20 ms frames at the output rate. Writers append samples
// of any count; the pacer sends whole frames through views made with the ring, so sending
// allocates nothing.
//
// The ring holds up to capacityFrames (the backpressure bound: 400 ms for the echo), but its
// memory starts at MIN_SLOTS frames and grows only when that many must wait at once: a call
// that is read in time keeps a frame or two queued, and 400 ms at 24 kHz was 19 KiB per call.
// A backlog dropped with clearCounted gives the memory back. Which frames are kept, sent and
// dropped does not depend on the memory held.

export const FRAME_MS = 20;

/** Frames of memory a queue starts with (the pacing lead is 3 frames, plus the one being filled). */
const MIN_SLOTS = 4;

export class OutputQueue {
  readonly frameSamples: number;
  readonly capacityFrames: number;
  /** Frames of memory held now (MIN_SLOTS .. capacityFrames); frame k lives in slot k % slots. */
  private slots = 0;
  private ring = new Int16Array(0);
  /** One byte view per ring slot, handed to ws.send as is. */
  private views: Uint8Array[] = [];
  private writtenSamples = 0;
  private readFrames = 0;
  /** Frames dropped because the ring was full (the client could not keep up). */
  droppedFrames = 0;

  constructor(sampleRateHz: number, capacityMs = 500) {
    this.frameSamples = (sampleRateHz * FRAME_MS) / 1000;
    this.capacityFrames = Math.max(2, Math.ceil(capacityMs / FRAME_MS));
    this.resize(Math.min(MIN_SLOTS, this.capacityFrames));
  }

  /** Complete frames waiting to be sent. */
  get readyFrames(): number {
    return Math.floor(this.writtenSamples / this.frameSamples) - this.readFrames;
  }

  /** Frames of memory the ring holds now (tests and memory figures). */
  get heldFrames(): number {
    return this.slots;
  }

  /** Appends `count` samples from `src` (from index 0); the oldest frames give way when full. */
  write(src: Int16Array, count: number): void {
    // Frames that must be held at once after this write (the one being filled included).
    const needed = Math.ceil((this.writtenSamples + count) / this.frameSamples) - this.readFrames;
    if (needed > this.slots && this.slots < this.capacityFrames) this.resize(Math.min(this.capacityFrames, Math.max(needed, 2 * this.slots)));
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

  /** The next complete frame (a view valid until the next write), or null. */
  peek(): Uint8Array | null {
    return this.readyFrames > 0 ? this.views[this.readFrames % this.slots] : null;
  }

  /** The next complete frame as samples (same memory as `peek`). */
  peekSamples(): Int16Array | null {
    if (this.readyFrames <= 0) return null;
    const start = (this.readFrames % this.slots) * this.frameSamples;
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
    this.resize(Math.min(MIN_SLOTS, this.capacityFrames));
  }

  /** Drops everything queued (an interruption). */
  clear(): void {
    this.readFrames = Math.floor(this.writtenSamples / this.frameSamples);
  }

  /** Moves the frames held (complete and the one being filled) into a ring of `slots` frames. */
  private resize(slots: number): void {
    if (slots === this.slots) return;
    const fs = this.frameSamples;
    const ring = new Int16Array(fs * slots);
    const last = Math.ceil(this.writtenSamples / fs);
    for (let k = this.readFrames; k < last; k++) {
      const from = (k % this.slots) * fs;
      ring.set(this.ring.subarray(from, from + fs), (k % slots) * fs);
    }
    this.slots = slots;
    this.ring = ring;
    this.views = Array.from({ length: slots }, (_, i) => new Uint8Array(ring.buffer, i * fs * 2, fs * 2));
  }
}
