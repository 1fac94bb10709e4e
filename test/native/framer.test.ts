// Framer and MediaChannel: exact lengths and continuity across arbitrary
// message splits; odd/oversized input is an error with a stable code.
import t from 'tap';
import { Framer, MediaChannel, NativeError } from '../../src/audio/native.js';
import { rng } from './corpus.js';

function ramp(n: number): Buffer {
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(((i * 7919) % 65536) - 32768, i * 2);
  return b;
}

/** Random even-length split of buf (0..maxBytes per piece, empty pieces included). */
function split(buf: Buffer, seed: number, maxBytes: number): Buffer[] {
  const r = rng(seed);
  const out: Buffer[] = [];
  for (let o = 0; o < buf.length; ) {
    const n = Math.min(buf.length - o, 2 * Math.floor(r() * (maxBytes / 2 + 1)));
    out.push(buf.subarray(o, o + n));
    o += n;
  }
  return out;
}

t.test('frames are exact and continuous for any split', async (t) => {
  for (const [rate, ms] of [[8000, 10], [16000, 20], [24000, 30], [48000, 20]] as const) {
    const total = 12345;
    const src = ramp(total);
    const expected = new Int16Array(src.buffer, src.byteOffset, total);
    for (let seed = 1; seed <= 20; seed++) {
      const f = new Framer({ sampleRateHz: rate, frameMs: ms });
      const got: number[] = [];
      for (const piece of split(src, seed, seed % 2 ? 64 : 4000)) {
        const n = f.push(piece);
        for (let i = 0; i < n * f.frameSamples; i++) got.push(f.output[i]);
      }
      const fs = (rate * ms) / 1000;
      t.equal(f.frameSamples, fs);
      t.equal(got.length, Math.floor(total / fs) * fs, `length ${rate}/${ms}/${seed}`);
      t.equal(f.pendingSamples, total % fs);
      t.same(Int16Array.from(got), expected.subarray(0, got.length), `continuity ${rate}/${ms}/${seed}`);
    }
  }
});

t.test('ArrayBuffer messages (uWS) work like Buffers', async (t) => {
  const f = new Framer({ sampleRateHz: 16000, frameMs: 20 });
  const b = ramp(320);
  t.equal(f.push(b.buffer.slice(b.byteOffset, b.byteOffset + b.length) as ArrayBuffer), 1);
  t.equal(f.output[5], b.readInt16LE(10));
});

t.test('odd and oversized messages are errors and leave state untouched', async (t) => {
  const f = new Framer({ sampleRateHz: 16000, frameMs: 20, maxMessageBytes: 65536 });
  f.push(Buffer.alloc(100));
  t.throws(() => f.push(Buffer.alloc(3)), { code: 'VC_ERR_NATIVE_ODD_LENGTH' });
  t.throws(() => f.push(Buffer.alloc(65538)), { code: 'VC_ERR_NATIVE_OVERSIZED' });
  t.equal(f.pendingSamples, 50);
  t.equal(f.push(Buffer.alloc(65536)), Math.floor((50 + 32768) / 320));
  t.throws(() => new Framer({ sampleRateHz: 16000, frameMs: 25 as 20 }), { code: 'VC_ERR_NATIVE_UNSUPPORTED_FRAME' });
  t.throws(() => new Framer({ sampleRateHz: 4000, frameMs: 20 }), { code: 'VC_ERR_NATIVE_UNSUPPORTED_RATE' });
  try { f.push(Buffer.alloc(1)); } catch (e) { t.ok(e instanceof NativeError); }
});

t.test('MediaChannel: resampled frames identical for any split', async (t) => {
  const total = 24000 * 2;  // 2 s at 24 kHz
  const src = Buffer.alloc(total * 2);
  for (let i = 0; i < total; i++) src.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 24000)), 2 * i);
  const runs: Int16Array[] = [];
  for (const seed of [1, 2, 3]) {
    const ch = new MediaChannel({ inRateHz: 24000, procRateHz: 16000, refRateHz: 24000, frameMs: 20 });
    const got: number[] = [];
    for (const piece of split(src, seed, seed === 1 ? 65536 : 900)) {
      const n = ch.process(piece);
      for (let i = 0; i < n * ch.frameSamples; i++) got.push(ch.output[i]);
    }
    runs.push(Int16Array.from(got));
  }
  t.equal(runs[0].length, 100 * 320, 'exactly 2 s of 16 kHz frames');
  t.same(runs[1], runs[0]);
  t.same(runs[2], runs[0]);
  const ch = new MediaChannel({ inRateHz: 8000, procRateHz: 16000, refRateHz: 8000 });
  t.throws(() => ch.process(Buffer.alloc(7)), { code: 'VC_ERR_NATIVE_ODD_LENGTH' });
  t.throws(() => ch.process(Buffer.alloc(70000)), { code: 'VC_ERR_NATIVE_OVERSIZED' });
  t.equal(ch.process(Buffer.alloc(0)), 0);
});
