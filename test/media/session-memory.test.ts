// Per-session memory of an echo call (issue 21): the output ring holds memory for the frames
// that wait, not for its whole 400 ms bound, and sends, keeps and drops exactly the frames the
// fixed ring it replaced did; the native chains of all calls write into one shared array.
import t from 'tap';
import { OutputQueue } from '../../src/media/output-queue.js';
import { EchoCall, OUTPUT_QUEUE_MS } from '../../src/media/echo-call.js';
import { EchoChain } from '../../src/audio/native.js';

/** The ring as it was before (all capacityFrames allocated up front): the reference. */
class FixedRing {
  readonly frameSamples: number;
  readonly capacityFrames: number;
  private readonly ring: Int16Array;
  private writtenSamples = 0;
  private readFrames = 0;
  droppedFrames = 0;

  constructor(sampleRateHz: number, capacityMs: number) {
    this.frameSamples = (sampleRateHz * 20) / 1000;
    this.capacityFrames = Math.max(2, Math.ceil(capacityMs / 20));
    this.ring = new Int16Array(this.frameSamples * this.capacityFrames);
  }

  get readyFrames(): number {
    return Math.floor(this.writtenSamples / this.frameSamples) - this.readFrames;
  }

  write(src: Int16Array, count: number): void {
    const cap = this.ring.length;
    let w = this.writtenSamples % cap;
    for (let i = 0; i < count; i++) {
      this.ring[w] = src[i];
      if (++w === cap) w = 0;
    }
    this.writtenSamples += count;
    const excess = Math.ceil(this.writtenSamples / this.frameSamples) - this.readFrames - this.capacityFrames;
    if (excess > 0) {
      this.readFrames += excess;
      this.droppedFrames += excess;
    }
  }

  peekSamples(): Int16Array | null {
    if (this.readyFrames <= 0) return null;
    const start = (this.readFrames % this.capacityFrames) * this.frameSamples;
    return this.ring.subarray(start, start + this.frameSamples);
  }

  shift(): void {
    if (this.readyFrames > 0) this.readFrames++;
  }

  clearCounted(): void {
    const ready = this.readyFrames;
    if (ready <= 0) return;
    this.readFrames += ready;
    this.droppedFrames += ready;
  }

  clear(): void {
    this.readFrames = Math.floor(this.writtenSamples / this.frameSamples);
  }
}

/** Deterministic pseudo-random numbers (xorshift32). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

t.test('the growing ring sends, keeps and drops the frames the fixed ring did', async (t) => {
  for (const [rate, capacityMs, seed] of [[24000, OUTPUT_QUEUE_MS, 1], [8000, 100, 2], [16000, 40, 3], [48000, 400, 4]]) {
    const q = new OutputQueue(rate, capacityMs);
    const ref = new FixedRing(rate, capacityMs);
    const rnd = random(seed);
    let next = 0;
    let mismatches = 0;
    for (let step = 0; step < 20_000; step++) {
      const r = rnd();
      if (r < 0.45) {
        // Whole frames (the echo), odd pieces, and now and then more than the ring holds.
        const count = r < 0.3 ? q.frameSamples : r < 0.44 ? Math.floor(rnd() * 2.5 * q.frameSamples) : Math.floor(rnd() * (q.capacityFrames + 3) * q.frameSamples);
        const src = Int16Array.from({ length: count }, () => (next++ % 65536) - 32768);
        q.write(src, count);
        ref.write(src, count);
      } else if (r < 0.9) {
        q.shift();
        ref.shift();
      } else if (r < 0.97) {
        q.clearCounted();
        ref.clearCounted();
      } else {
        q.clear();
        ref.clear();
      }
      const a = q.peekSamples(), b = ref.peekSamples();
      const peeked = q.peek();
      if (q.readyFrames !== ref.readyFrames || q.droppedFrames !== ref.droppedFrames || (a === null) !== (b === null) || (peeked === null) !== (a === null)) mismatches++;
      else if (a && b && (a.some((v, i) => v !== b[i]) || peeked!.byteLength !== 2 * q.frameSamples || new Int16Array(peeked!.buffer, peeked!.byteOffset, q.frameSamples)[0] !== a[0])) mismatches++;
    }
    t.equal(mismatches, 0, `${rate} Hz, ${capacityMs} ms: same frames, same drops after 20,000 random operations`);
    t.ok(ref.droppedFrames > 0, 'the sequence overflowed the ring');
  }
});

t.test('a queue read in time holds four frames of memory, a backlog gives its memory back', async (t) => {
  const q = new OutputQueue(24000, OUTPUT_QUEUE_MS);
  const frame = new Int16Array(q.frameSamples);
  t.equal(q.capacityFrames, 20);
  for (let i = 0; i < 500; i++) {
    q.write(frame, frame.length);
    if (i % 3 === 2) while (q.readyFrames > 0) q.shift(); // up to three frames wait (the pacing lead)
  }
  t.equal(q.heldFrames, 4, 'three waiting frames and the next one fit in four');
  while (q.readyFrames > 0) q.shift();
  for (let i = 0; i < 30; i++) q.write(frame, frame.length);
  t.equal(q.heldFrames, 20, 'a backlog grows it to its bound, no further');
  t.equal(q.readyFrames, 20, '400 ms of frames wait');
  t.equal(q.droppedFrames, 10, 'the oldest give way, counted');
  q.clearCounted();
  t.equal(q.heldFrames, 4, 'dropping the backlog shrinks it again');
});

t.test('an echo call answered in time keeps a small ring', async (t) => {
  const call = new EchoCall(16000, 24000);
  const frameIn = new Uint8Array(640);
  for (let i = 0; i < 100; i++) {
    call.pushAudio(frameIn);
    while (call.nextFrame()) call.frameSent();
  }
  t.equal(call.droppedFrames, 0);
  t.equal((call as unknown as { queue: OutputQueue }).queue.heldFrames, 4);
});

/** PCM16LE bytes of a tone with a DC mark, `frames` × 20 ms at 16 kHz. */
function tone(frames: number, mark: number): Uint8Array {
  const pcm = Int16Array.from({ length: frames * 320 }, (_, i) => Math.round(6000 * Math.sin(i / 4.7)) + 16 * mark);
  return new Uint8Array(pcm.buffer);
}

t.test('chains writing into one shared array give what each gives into its own', async (t) => {
  const opts = { inRateHz: 16000, outRateHz: 24000, frameMs: 20, maxMessageBytes: 2048 } as const;
  const own = [new EchoChain(opts), new EchoChain(opts)];
  const shared = [new EchoChain(opts), new EchoChain(opts)];
  const out = new Int16Array(shared[0].maxOutputSamples);
  t.equal(shared[0].maxOutputSamples, own[0].output.length, 'maxOutputSamples is the length of the own output');
  t.ok(shared[0].stateBytes < own[0].stateBytes, `no own output made: ${shared[0].stateBytes} B against ${own[0].stateBytes} B`);
  let compared = 0;
  let differing = 0;
  for (let m = 0; m < 60; m++) {
    for (const c of [0, 1]) {
      // Messages of 7, 20, 40 and 64 ms: partial frames carried, several frames per push.
      const message = tone(4, m + 10 * c).subarray(0, [224, 640, 1280, 2048][(m + c) % 4]);
      const n = own[c].push(message);
      if (shared[c].pushInto(message, out) !== n || out.subarray(0, n).some((v, i) => v !== own[c].output[i])) differing++;
      compared += n;
    }
  }
  t.equal(differing, 0, `${compared} samples compared, no push differs`);
  t.ok(compared > 10_000);
  t.throws(() => shared[0].pushInto(tone(3, 0).subarray(0, 2048), new Int16Array(10)), { code: 'VC_ERR_NATIVE_BUFFER_TOO_SMALL' }, 'a too small output is refused');
});

t.test('two echo calls in one process each hear their own audio back', async (t) => {
  const calls = [new EchoCall(16000, 24000), new EchoCall(16000, 24000)];
  const heard: number[][] = [[], []];
  for (let m = 0; m < 20; m++) {
    for (const c of [0, 1]) {
      calls[c].pushAudio(new Uint8Array(new Int16Array(320).fill(1600 * (c + 1)).buffer)); // a DC level per call
      for (let f = calls[c].nextFrame(); f; f = calls[c].nextFrame()) {
        const pcm = new Int16Array(f.buffer, f.byteOffset, f.byteLength / 2);
        heard[c].push(Math.round(pcm.reduce((a, v) => a + v, 0) / pcm.length / 16));
        calls[c].frameSent();
      }
    }
  }
  // After the resampler's first frames (its filter filling), each call's frames carry its own level.
  t.same(new Set(heard[0].slice(2)), new Set([100]), 'the first call hears its mark only');
  t.same(new Set(heard[1].slice(2)), new Set([200]), 'the second call hears its mark only');
});
