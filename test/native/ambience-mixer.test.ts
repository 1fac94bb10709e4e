// Ambience levels/spectra and the mixer's clipping protection.
import t from 'tap';
import { Ambience, Mixer } from '../../src/audio/native.js';

const rmsDb = (x: Int16Array) => 10 * Math.log10(x.reduce((a, v) => a + v * v, 0) / x.length / 32768 ** 2 + 1e-20);

/** Power ratio (dB) of the 0-500 Hz band to the 2-4 kHz band, via a crude DFT. */
function tilt(x: Int16Array, rate: number): number {
  const band = (lo: number, hi: number) => {
    let p = 0;
    for (let f = lo; f < hi; f += 50) {
      let re = 0, im = 0;
      for (let i = 0; i < 4096; i++) { re += x[i] * Math.cos((2 * Math.PI * f * i) / rate); im += x[i] * Math.sin((2 * Math.PI * f * i) / rate); }
      p += re * re + im * im;
    }
    return p / ((hi - lo) / 50);
  };
  return 10 * Math.log10(band(100, 500) / band(2000, 4000));
}

t.test('level 0..100 maps to RMS, 0 is silence', async (t) => {
  for (const kind of ['white', 'pink', 'brown', 'office_hum'] as const) {
    const buf = new Int16Array(16000 * 2);
    const a = new Ambience({ sampleRateHz: 16000, kind, level: 50 });
    a.generate(buf);
    t.ok(Math.abs(rmsDb(buf) - (-72 + 0.6 * 50)) < 3, `${kind} level 50 ~ -42 dBFS (${rmsDb(buf).toFixed(1)})`);
    a.setLevel(0);
    a.generate(buf);
    t.ok(buf.every((v) => v === 0), `${kind} level 0 is silent`);
  }
  t.throws(() => new Ambience({ sampleRateHz: 16000, kind: 'white', level: 101 }), { code: 'VC_ERR_NATIVE_INVALID_ARGUMENT' });
});

t.test('spectral tilt: white flat, pink ~-3 dB/oct, brown steeper', async (t) => {
  const tilts: Record<string, number> = {};
  for (const kind of ['white', 'pink', 'brown'] as const) {
    const buf = new Int16Array(4096);
    new Ambience({ sampleRateHz: 16000, kind, level: 80, seed: 3 }).generate(buf);
    tilts[kind] = tilt(buf, 16000);
  }
  t.ok(Math.abs(tilts.white) < 3, `white ${tilts.white.toFixed(1)} dB`);
  t.ok(tilts.pink > 5 && tilts.pink < 15, `pink ${tilts.pink.toFixed(1)} dB`);
  t.ok(tilts.brown > tilts.pink + 5, `brown ${tilts.brown.toFixed(1)} dB`);
});

t.test('mixer applies gain and never wraps', async (t) => {
  const a = Int16Array.from({ length: 1000 }, (_, i) => Math.round(30000 * Math.sin(i / 10)));
  const b = Int16Array.from({ length: 1000 }, (_, i) => Math.round(30000 * Math.sin(i / 10 + 0.2)));
  const out = new Int16Array(1000);
  const m = new Mixer(0, 0);
  m.mix(a, b, out);
  let jump = 0;
  for (let i = 1; i < 1000; i++) jump = Math.max(jump, Math.abs(out[i] - out[i - 1]));
  t.ok(jump < 8000, `no wrap-around jumps (max step ${jump})`);
  t.ok(out.every((v, i) => Math.sign(v) === Math.sign(a[i] + b[i]) || Math.abs(a[i] + b[i]) < 2), 'sign preserved');
  t.ok(m.clippedSamples > 0, 'limiter engaged');
  const g = new Mixer(-6.0206, 0);
  g.mix(Int16Array.from([1000, -2000]), null, out);
  t.same([out[0], out[1]], [500, -1000], '-6 dB halves');
  const q = new Mixer(0, -96);
  q.mix(Int16Array.from([100]), Int16Array.from([30000]), out);
  t.equal(out[0], 100);
});
