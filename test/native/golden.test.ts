// Bit-exactness against the outputs recorded before the resampler kernel, its shared
// filter tables and the buffer sizing were reworked: same fixed input, same bytes out.
// MediaChannel: frames (resampler bytes, as recorded then) / probabilities (VAD and barge-in,
// re-recorded when the VAD learnt the babble background and again when barge-in got its per-band
// double-talk test, 2026-11-24; the frames were checked
// equal to the build before that change). Regenerate (only for a deliberate change of the
// filters, or of the VAD for the probabilities) with GOLDEN_PRINT=1.
import { createHash } from 'node:crypto';
import t from 'tap';
import { MediaChannel, Resampler, nativeDebug, type ResamplerQuality } from '../../src/audio/native.js';
import { rng } from './corpus.js';

const RATIOS: [number, number][] = [
  [16000, 24000], [24000, 16000], [8000, 16000], [16000, 8000], [22050, 16000], [44100, 16000],
  [48000, 16000], [48000, 8000], [44100, 48000], [8000, 24000], [24000, 8000], [16000, 48000], [32000, 16000],
];
const QUALITIES: ResamplerQuality[] = ['low', 'default', 'high', 'fast'];

function input(rate: number, seconds: number): Int16Array {
  const r = rng(rate);
  const n = Math.round(rate * seconds);
  const x = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const v = 12000 * Math.sin((2 * Math.PI * 1234.5 * i) / rate) + 9000 * (r() - 0.5) + (i % 4000 < 40 ? 30000 : 0);
    x[i] = Math.max(-32768, Math.min(32767, Math.round(v)));
  }
  return x;
}

const hash = (b: ArrayBufferView) => createHash('sha256').update(new Uint8Array(b.buffer, b.byteOffset, b.byteLength)).digest('hex').slice(0, 16);

/** int16 path fed in 20 ms frames, float path in one call: both hashed. */
function resampleHashes(a: number, b: number, q: ResamplerQuality): string {
  const x = input(a, 0.5);
  const frame = Math.round(a / 50);
  const r = new Resampler({ inRateHz: a, outRateHz: b, quality: q, maxInputSamples: frame });
  const out: number[] = [];
  for (let o = 0; o < x.length; o += frame) {
    const n = r.process(x.subarray(o, Math.min(x.length, o + frame)));
    for (let i = 0; i < n; i++) out.push(r.output[i]);
  }
  const rf = new Resampler({ inRateHz: a, outRateHz: b, quality: q, maxInputSamples: x.length });
  const yf = new Float32Array(rf.outputSamplesFor(x.length));
  const nf = rf.processFloat(Float32Array.from(x), yf);
  return `${hash(Int16Array.from(out))}/${hash(yf.subarray(0, nf))}`;
}

/** MediaChannel fed random message sizes with the reference in step: `frames hash/probabilities hash`. */
function channelHash(inRateHz: number): string {
  const ch = new MediaChannel({ inRateHz, procRateHz: 16000, refRateHz: 24000, maxMessageBytes: 4096 });
  const x = input(inRateHz, 2);
  const ref = input(24000, 2);
  const msg = Buffer.from(x.buffer);
  const frames = createHash('sha256'), probs = createHash('sha256');
  const r = rng(7);
  let refAt = 0;
  for (let o = 0; o < msg.length; ) {
    const k = Math.min(msg.length - o, 2 * Math.floor(r() * 2048));
    const refN = Math.min(ref.length - refAt, Math.round((k / 2) * (24000 / inRateHz)));
    ch.pushReference(ref.subarray(refAt, refAt + refN));
    refAt += refN;
    const n = ch.process(msg.subarray(o, o + k));
    o += k;
    frames.update(new Uint8Array(ch.output.buffer, ch.output.byteOffset, n * ch.frameSamples * 2));
    probs.update(new Uint8Array(ch.probabilities.buffer, ch.probabilities.byteOffset, n * 4));
    probs.update(new Uint8Array(ch.callerProbabilities.buffer, ch.callerProbabilities.byteOffset, n * 4));
  }
  return `${frames.digest('hex').slice(0, 16)}/${probs.digest('hex').slice(0, 16)}`;
}

// Recorded on x86-64 with AVX2+FMA (the arch=x86-64-v3 clones), before the rework.
const GOLDEN: Record<string, string> = {
  '16000->24000 low': '6ffb677982dc8ea0/b008f880b8946525',
  '16000->24000 default': '1e2faae3eacbb8fe/c1794f7fc4ae74c8',
  '16000->24000 high': 'bcd2451a9dc53c7e/80503c778e2e152e',
  '16000->24000 fast': 'a52f632139822e38/e71a96afe4afab8f',
  '24000->16000 low': 'c755ec6825c5ab4c/af84e07bd749186a',
  '24000->16000 default': 'd0334b0177f90e61/84927b749bae0940',
  '24000->16000 high': '95cb15032cce0a92/8c23835d064d5872',
  '24000->16000 fast': 'ab0fcbd4562a5049/2b731cd2c5d31ae9',
  '8000->16000 low': 'c6c0c811621219b4/60aadf277d58041f',
  '8000->16000 default': '9d0989417878892e/0f45aedb16a698be',
  '8000->16000 high': '5757ce790e64f066/f68adfe501872092',
  '8000->16000 fast': '5666ff996ead1057/3eb0155e76ad6184',
  '16000->8000 low': '2cfcaa122331aad5/e973b3131cd8d11f',
  '16000->8000 default': 'dd4772962d85549f/b89b8e44a7a5bf18',
  '16000->8000 high': '8cbea860d00c2240/b457e0b8d36a793d',
  '16000->8000 fast': '0dc54af2589b0862/a7011707709845da',
  '22050->16000 low': '6925ea4725cf6a0e/0a8a1390c0ced7ed',
  '22050->16000 default': 'b018661e7cc82ed6/3b9c025f1be1b0c1',
  '22050->16000 high': '34b5bd8f1852d8e2/feb820d6da284959',
  '22050->16000 fast': 'a6bb6ad46a8c8f19/d5a74f620902ccd8',
  '44100->16000 low': 'c1c7501e0314101e/398852d7d0776643',
  '44100->16000 default': '9cabefa8d313ccdf/180ca4ddaba9a7f8',
  '44100->16000 high': '4e6b4eb4f6f7f5cc/efb8b8c22a442e95',
  '44100->16000 fast': 'bc93403d9f9d1bd7/57ae0d6f140e8d5c',
  '48000->16000 low': '931fbe9ca3b665b5/5d8db86c78a0673a',
  '48000->16000 default': 'e89f0e0857f340ca/f661a7a67a78f84d',
  '48000->16000 high': 'd16703fd7eaf8dbe/0eae29ef9c54dbee',
  '48000->16000 fast': '361f757d8f34729e/16443da4ec85741a',
  '48000->8000 low': '64ffcd0b2de86da0/531b735d12eaeabc',
  '48000->8000 default': '96b32c053c1cd0d3/46e0e85a65dc85c7',
  '48000->8000 high': 'dc562637cda16b9f/dc3fe7ab502b3ff7',
  '48000->8000 fast': '49591c3d133db1bc/d0736501cec6bb0f',
  '44100->48000 low': '3cd055c88bd1d628/2e7637f630a650d0',
  '44100->48000 default': 'be7516215e6bf7c8/b215004c50a8682f',
  '44100->48000 high': 'a38bd66e1e0bc380/99bca7744d33b612',
  '44100->48000 fast': '75e9df864c7a0c93/045a886f840d29fc',
  '8000->24000 low': '02138fe4f290b389/c1610b2167047755',
  '8000->24000 default': '63ad0ab6cebcfe0a/315e82f565919522',
  '8000->24000 high': 'e12767781fcf848c/06b6d056e44f57e3',
  '8000->24000 fast': '644d8afbd416b0be/4dbd222075aab8dd',
  '24000->8000 low': '5c6b89b67ac6189b/58acd7788657ad9b',
  '24000->8000 default': 'eb536ca2d6077d08/8203e780e658e780',
  '24000->8000 high': '7b6fbf6c8d9abacc/1220d577d68245ef',
  '24000->8000 fast': 'cda4309ec0e64387/b9c29e426bd43b39',
  '16000->48000 low': '0cac9eb2eb200a3e/401c2cd83a775874',
  '16000->48000 default': 'e0c694a1881cf0f2/fbe56dbe115439e4',
  '16000->48000 high': 'b03ecad660fac43a/933621d093124638',
  '16000->48000 fast': 'ab722a3d629d8ac6/bcc8131f79fb9dc3',
  '32000->16000 low': '82604421f78bf5a1/ee08f1e1b478ac3d',
  '32000->16000 default': '82716c7e0bfed7c3/7cd8a04d27596a3f',
  '32000->16000 high': 'c0696622415294cd/d14e2f9420f982d7',
  '32000->16000 fast': 'e54551d05957080c/ef69d0f9268ac261',
  'channel 16k->16k': '00f116813ad6457e/4b00337f715c824f',
  'channel 24k->16k': 'e5e47cdde1261b87/a368e12631a8635d',
  'channel 8k->16k': '8d76d9f7c1cb5219/9d9ab64fb6653d9a',
  'channel 48k->16k': 'e64f98581caaa990/4789909cbd7bc0ec',
};

const print = process.env.GOLDEN_PRINT === '1';
const got: Record<string, string> = {};

// The hashes hold for the FMA kernels; each one this CPU can run is checked.
const initial = nativeDebug.resamplerSimd();
const levels = (['avx512', 'avx2'] as const).filter((l) => nativeDebug.resamplerSimd(l) === l);
nativeDebug.resamplerSimd(initial as 'avx512' | 'avx2' | 'generic');

for (const level of print ? [initial] : levels) {
  t.test(`resampler output is bit-identical to the recorded outputs (${level})`, async (t) => {
    nativeDebug.resamplerSimd(level as 'avx512' | 'avx2');
    t.teardown(() => void nativeDebug.resamplerSimd(initial as 'avx512' | 'avx2' | 'generic'));
    for (const [a, b] of RATIOS) {
      for (const q of QUALITIES) {
        const key = `${a}->${b} ${q}`;
        got[key] = resampleHashes(a, b, q);
        if (!print) t.equal(got[key], GOLDEN[key], key);
      }
    }
  });

  t.test(`MediaChannel output is bit-identical to the recorded outputs (${level})`, async (t) => {
    nativeDebug.resamplerSimd(level as 'avx512' | 'avx2');
    t.teardown(() => void nativeDebug.resamplerSimd(initial as 'avx512' | 'avx2' | 'generic'));
    for (const rate of [16000, 24000, 8000, 48000]) {
      const key = `channel ${rate / 1000}k->16k`;
      got[key] = channelHash(rate);
      if (!print) t.equal(got[key], GOLDEN[key], key);
    }
    if (print) console.log(JSON.stringify(got, null, 2));
  });
}

if (!levels.length && !print) t.comment(`no AVX2/FMA on this CPU (${initial} kernel): recorded hashes not applicable`);
