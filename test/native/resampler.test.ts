// Resampler: exact lengths, bit-exact continuity across splits, and sine-sweep
// frequency response / aliasing, measured the same way for speex-resampler.
import t from 'tap';
import SR from 'speex-resampler';
import { Resampler } from '../../src/audio/native.js';
import { rng } from './corpus.js';

const Speex: any = (SR as any).default ?? SR;

/** Least-squares fit of a sinusoid at f; returns [amplitude, residual power]. */
function fitTone(y: Float64Array, f: number, rate: number): [number, number] {
  let ss = 0, cc = 0, sc = 0, ys = 0, yc = 0;
  for (let i = 0; i < y.length; i++) {
    const s = Math.sin((2 * Math.PI * f * i) / rate), c = Math.cos((2 * Math.PI * f * i) / rate);
    ss += s * s; cc += c * c; sc += s * c; ys += y[i] * s; yc += y[i] * c;
  }
  const det = ss * cc - sc * sc;
  const a = (ys * cc - yc * sc) / det, b = (yc * ss - ys * sc) / det;
  let res = 0;
  for (let i = 0; i < y.length; i++) {
    const v = y[i] - a * Math.sin((2 * Math.PI * f * i) / rate) - b * Math.cos((2 * Math.PI * f * i) / rate);
    res += v * v;
  }
  return [Math.hypot(a, b), res / y.length];
}

type Run = (x: Int16Array | Float32Array) => Float64Array;
const AMP = 16000;

/** Gain (dB) and alias/image level (dB re tone) of one tone through a resampler. */
function measure(run: Run, inHz: number, outHz: number, f: number, float: boolean): { gainDb: number; aliasDb: number } {
  const n = Math.round(inHz * 0.6);
  const x = float ? new Float32Array(n) : new Int16Array(n);
  for (let i = 0; i < n; i++) x[i] = AMP * Math.sin((2 * Math.PI * f * i) / inHz) * (float ? 1 : 1);
  if (!float) for (let i = 0; i < n; i++) x[i] = Math.round(x[i]);
  const y = run(x);
  const seg = y.subarray(Math.round(outHz * 0.1), Math.round(outHz * 0.5));  // skip filter warm-up
  const tonePow = (AMP * AMP) / 2;
  if (f >= outHz / 2) {  // not representable: everything left is aliasing
    let p = 0;
    for (const v of seg) p += v * v;
    return { gainDb: -Infinity, aliasDb: 10 * Math.log10(p / seg.length / tonePow + 1e-30) };
  }
  const [a, res] = fitTone(seg, f, outHz);
  return { gainDb: 20 * Math.log10(a / AMP), aliasDb: 10 * Math.log10(res / tonePow + 1e-30) };
}

function ours(inHz: number, outHz: number, float: boolean, quality: 'default' | 'fast' = 'default'): Run {
  return (x) => {
    const r = new Resampler({ inRateHz: inHz, outRateHz: outHz, maxInputSamples: x.length, quality });
    if (float) {
      const out = new Float32Array(r.outputSamplesFor(x.length));
      const n = r.processFloat(x as Float32Array, out);
      return Float64Array.from(out.subarray(0, n));
    }
    const n = r.process(x as Int16Array);
    return Float64Array.from(r.output.subarray(0, n));
  };
}

function speex(inHz: number, outHz: number, q: number): Run {
  return (x) => {
    const s = new Speex(1, inHz, outHz, q);
    const b: Buffer = s.processChunk(Buffer.from((x as Int16Array).buffer));
    return Float64Array.from(new Int16Array(b.buffer, b.byteOffset, b.length / 2));
  };
}

/** Worst passband deviation and worst alias level over a sweep. */
/** stopStart: where the stopband begins, x lower Nyquist (1.1 = alias-free passband design). */
function sweep(run: Run, inHz: number, outHz: number, float: boolean, stopStart = 1.0) {
  const fn = Math.min(inHz, outHz) / 2;
  let rippleDb = 0, aliasDb = -300;
  for (let k = 1; k <= 18; k++) {  // passband: 0.05 .. 0.90 x lower Nyquist
    const m = measure(run, inHz, outHz, (k / 20) * fn, float);
    rippleDb = Math.max(rippleDb, Math.abs(m.gainDb));
    aliasDb = Math.max(aliasDb, m.aliasDb);
  }
  if (inHz < outHz && stopStart === 1.0) {  // images of tones just below Nyquist fall right above it: stopband from 1.0 x Nyquist
    for (const k of [0.92, 0.95, 0.98, 0.995]) aliasDb = Math.max(aliasDb, measure(run, inHz, outHz, k * fn, float).aliasDb);
  }
  if (inHz > outHz) {  // stopband: tones above the output Nyquist must vanish
    for (let f = stopStart * fn; f < inHz / 2 - 50; f += (inHz / 2 - stopStart * fn) / 12) aliasDb = Math.max(aliasDb, measure(run, inHz, outHz, f, float).aliasDb);
  }
  return { rippleDb, stopbandDb: -aliasDb };
}

const RATIOS: [number, number][] = [[16000, 24000], [24000, 16000], [8000, 16000], [16000, 8000], [22050, 16000], [44100, 16000], [48000, 16000], [48000, 8000], [44100, 48000]];

t.test('sine sweep: ripple <= 0.1 dB to 0.9 x Nyquist, >= 80 dB stopband; vs speex q4/q5', async (t) => {
  await Speex.initPromise;
  for (const [a, b] of RATIOS) {
    const f = sweep(ours(a, b, true), a, b, true);
    const i = sweep(ours(a, b, false), a, b, false);
    const s4 = sweep(speex(a, b, 4), a, b, false);
    const s5 = sweep(speex(a, b, 5), a, b, false);
    t.comment(`${a}->${b}: ours ripple ${f.rippleDb.toFixed(3)} dB stop ${f.stopbandDb.toFixed(1)} dB (int16 ${i.stopbandDb.toFixed(1)}) | ` +
      `speex q4 ripple ${s4.rippleDb.toFixed(2)} stop ${s4.stopbandDb.toFixed(1)} | q5 ripple ${s5.rippleDb.toFixed(2)} stop ${s5.stopbandDb.toFixed(1)}`);
    t.ok(f.rippleDb <= 0.1, `${a}->${b} ripple ${f.rippleDb.toFixed(4)} dB`);
    t.ok(f.stopbandDb >= 80, `${a}->${b} stopband ${f.stopbandDb.toFixed(1)} dB`);
    // int16 I/O puts a ~-89 dB quantisation floor under both; compare there.
    t.ok(i.stopbandDb >= 80 && i.stopbandDb >= s5.stopbandDb - 3, `${a}->${b} int16 aliasing ${i.stopbandDb.toFixed(1)} dB, speex q5 ${s5.stopbandDb.toFixed(1)} dB`);
    t.ok(f.rippleDb < s5.rippleDb, `${a}->${b} flatter passband than speex q5`);
  }
});

t.test("quality 'fast': alias-free passband (>= 80 dB from 1.1 x Nyquist)", async (t) => {
  for (const [a, b] of RATIOS.slice(0, 4)) {
    const f = sweep(ours(a, b, true, 'fast'), a, b, true, 1.1);
    t.comment(`${a}->${b} fast: ripple ${f.rippleDb.toFixed(3)} dB, aliases into 0-0.9 x Nyquist ${f.stopbandDb.toFixed(1)} dB down`);
    t.ok(f.rippleDb <= 0.1 && f.stopbandDb >= 80, `${a}->${b} fast meets ripple/alias spec`);
  }
});

t.test('lengths are exact and splits are bit-identical', async (t) => {
  const r0 = rng(5);
  const x = Int16Array.from({ length: 20000 }, () => Math.round((r0() - 0.5) * 30000));
  for (const [a, b] of RATIOS) {
    const whole = new Resampler({ inRateHz: a, outRateHz: b, maxInputSamples: x.length });
    const expectN = whole.outputSamplesFor(x.length);
    t.equal(expectN, Math.ceil((x.length * b) / a), `${a}->${b} length formula`);
    const n = whole.process(x);
    t.equal(n, expectN);
    const ref = Int16Array.from(whole.output.subarray(0, n));
    const r = new Resampler({ inRateHz: a, outRateHz: b, maxInputSamples: 4096 });
    const got: number[] = [];
    const rr = rng(a + b);
    for (let o = 0; o < x.length; ) {
      const k = Math.min(x.length - o, Math.floor(rr() * 1500));
      const m = r.process(x.subarray(o, o + k));
      for (let i = 0; i < m; i++) got.push(r.output[i]);
      o += k;
    }
    t.same(Int16Array.from(got), ref, `${a}->${b} split output identical`);
  }
});

t.test('DC passes flat, quality levels and bad rates', async (t) => {
  const r = new Resampler({ inRateHz: 16000, outRateHz: 24000 });
  const n = r.process(new Int16Array(3200).fill(10000));
  const tail = r.output.subarray(n - 1000, n);
  t.ok(tail.every((v) => Math.abs(v - 10000) <= 1), 'constant input stays constant');
  const low = new Resampler({ inRateHz: 16000, outRateHz: 24000, quality: 'low' });
  const high = new Resampler({ inRateHz: 16000, outRateHz: 24000, quality: 'high' });
  t.ok(low.tapsPerPhase < r.tapsPerPhase && r.tapsPerPhase < high.tapsPerPhase, 'taps grow with quality');
  t.throws(() => new Resampler({ inRateHz: 7999, outRateHz: 16000 }), { code: 'VC_ERR_NATIVE_UNSUPPORTED_RATE' });
  t.throws(() => new Resampler({ inRateHz: 16000, outRateHz: 96000 }), { code: 'VC_ERR_NATIVE_UNSUPPORTED_RATE' });
  const small = new Resampler({ inRateHz: 8000, outRateHz: 48000, maxInputSamples: 10 });
  t.throws(() => small.process(new Int16Array(1000)), { code: 'VC_ERR_NATIVE_BUFFER_TOO_SMALL' });
});
