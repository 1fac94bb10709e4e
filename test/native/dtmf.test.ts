// DTMF: all 16 digits generated and detected in noise; no talk-off on speech.
import t from 'tap';
import { DtmfDetector, dtmfGenerate } from '../../src/audio/native.js';
import { noise, speechTrack, toInt16 } from './corpus.js';

const KEYS = '123A456B789C*0#D';

function feed(det: DtmfDetector, pcm: Int16Array, chunk: number): string {
  let out = '';
  for (let o = 0; o < pcm.length; o += chunk) out += det.process(pcm.subarray(o, Math.min(pcm.length, o + chunk)));
  return out;
}

t.test('all 16 digits detected once each in white noise (10 and 20 dB SNR)', async (t) => {
  for (const rate of [8000, 16000]) {
    for (const snr of [10, 20]) {
      const parts = [...KEYS].map((k) => dtmfGenerate(k, { sampleRateHz: rate, durationMs: 70, gapMs: 60, levelDbfs: -12 }));
      const total = parts.reduce((a, p) => a + p.length, 0);
      const sig = new Float32Array(total);
      let o = 0;
      for (const p of parts) { sig.set(p, o); o += p.length; }
      // Tone power: two sines at -12 dBFS each.
      const tonePow = 2 * ((32767 * 10 ** (-12 / 20)) ** 2 / 2);
      const nz = noise('white', total, rate, snr);
      const g = Math.sqrt(tonePow / 10 ** (snr / 10));
      const x = toInt16(sig.map((v, i) => v + g * nz[i]));
      const det = new DtmfDetector(rate);
      t.equal(feed(det, x, rate / 50), KEYS, `${rate} Hz, ${snr} dB SNR`);
    }
  }
});

t.test('no digits from noise or speech (talk-off)', async (t) => {
  const det = new DtmfDetector(8000);
  t.equal(feed(det, toInt16(noise('pink', 8000 * 5, 8000).map((v) => v * 3000)), 160), '');
  const speech = speechTrack(8000, 2, 6);
  t.equal(feed(det, toInt16(speech.pcm), 160), '', 'espeak speech produces no digits');
});

t.test('generator validates input', async (t) => {
  t.throws(() => dtmfGenerate('X', { sampleRateHz: 8000 }), { code: 'VC_ERR_NATIVE_INVALID_DIGIT' });
  t.throws(() => dtmfGenerate('1', { sampleRateHz: 1000 }), { code: 'VC_ERR_NATIVE_UNSUPPORTED_RATE' });
  t.equal(dtmfGenerate('5', { sampleRateHz: 8000, durationMs: 100, gapMs: 50 }).length, 1200);
});
