// Answering-machine beep detector: a clear beep is found with its end time, speech and
// tones longer than 2 s are not, reset() restarts stream time, bad input throws.
import t from 'tap';
import { BeepDetector } from '../../src/audio/beep-detector.js';
import { noise, speechTrack, toInt16 } from './corpus.js';

/** silence(leadMs) + sine(hz, toneMs, levelDbfs) + silence(tailMs), over white noise 30 dB under the tone. */
function toneClip(rateHz: number, hz: number, leadMs: number, toneMs: number, tailMs: number, levelDbfs = -20): Float32Array {
  const n = (ms: number) => Math.round((rateHz * ms) / 1000);
  const x = new Float32Array(n(leadMs + toneMs + tailMs));
  const a = 32767 * 10 ** (levelDbfs / 20);
  const s = n(leadMs), len = n(toneMs), ramp = n(3);
  for (let i = 0; i < len; i++) {
    const g = Math.min(1, i / ramp, (len - i) / ramp);
    x[s + i] = g * a * Math.sin((2 * Math.PI * hz * i) / rateHz);
  }
  const nz = noise('white', x.length, rateHz, 5);
  const g = (a / Math.SQRT2) * 10 ** (-30 / 20);
  return x.map((v, i) => v + g * nz[i]);
}

/** Feeds 20 ms frames; returns each beep with the stream time of the frame that reported it. */
function feed(det: BeepDetector, pcm: Int16Array, rateHz: number) {
  const frame = rateHz / 50;
  const out: { endMs: number; startMs: number; frequencyHz: number; atMs: number }[] = [];
  for (let o = 0; o + frame <= pcm.length; o += frame) {
    const b = det.process(pcm.subarray(o, o + frame));
    if (b) out.push({ ...b, atMs: ((o + frame) / rateHz) * 1000 });
  }
  return out;
}

t.test('a 1 kHz 500 ms beep is detected once, with its end time, at 8 and 16 kHz', async (t) => {
  for (const rate of [8000, 16000]) {
    const det = new BeepDetector({ sampleRateHz: rate });
    const beeps = feed(det, toInt16(toneClip(rate, 1000, 700, 500, 800)), rate);
    t.equal(beeps.length, 1, `${rate} Hz: one beep`);
    const b = beeps[0];
    t.ok(Math.abs(b.endMs - 1200) <= 15, `${rate} Hz: end ${b.endMs} ms, true end 1200 ms`);
    t.ok(Math.abs(b.startMs - 700) <= 15, `${rate} Hz: start ${b.startMs} ms, true start 700 ms`);
    t.ok(Math.abs(b.frequencyHz - 1000) <= 5, `${rate} Hz: frequency ${b.frequencyHz}`);
    t.ok(b.atMs > 1200 && b.atMs - 1200 <= 300, `${rate} Hz: reported at ${b.atMs} ms, after the end and within 300 ms`);
    t.equal(det.lastBeep?.endMs, b.endMs, 'lastBeep keeps it');
  }
});

t.test('chunk size does not change the result', async (t) => {
  const pcm = toInt16(toneClip(8000, 650, 300, 400, 600));
  const whole = new BeepDetector({ sampleRateHz: 8000 }).process(pcm);
  const det = new BeepDetector({ sampleRateHz: 8000 });
  let chunked = null;
  for (let o = 0; o < pcm.length; o += 37) chunked = det.process(pcm.subarray(o, o + 37)) ?? chunked;
  t.ok(whole, 'detected fed in one call');
  t.same(chunked, whole, 'same beep fed in 37-sample chunks');
});

t.test('speech is not a beep', async (t) => {
  for (const rate of [8000, 16000]) {
    const speech = speechTrack(rate, 3, 6);
    const det = new BeepDetector({ sampleRateHz: rate });
    t.same(feed(det, toInt16(speech.pcm), rate), [], `${rate} Hz: six espeak-ng sentences, no beep`);
  }
});

t.test('a steady tone longer than 2 s is not a beep; one of 150 ms is', async (t) => {
  const det = new BeepDetector({ sampleRateHz: 8000 });
  t.same(feed(det, toInt16(toneClip(8000, 800, 500, 3000, 800)), 8000), [], '3 s tone');
  det.reset();
  t.equal(feed(det, toInt16(toneClip(8000, 800, 500, 150, 800)), 8000).length, 1, '150 ms tone');
});

t.test('two simultaneous tones (US ringback 440 + 480 Hz) are not a beep', async (t) => {
  const rate = 8000;
  const a = toneClip(rate, 440, 300, 1000, 800), b = toneClip(rate, 480, 300, 1000, 800);
  t.same(feed(new BeepDetector({ sampleRateHz: rate }), toInt16(a.map((v, i) => v + b[i])), rate), []);
});

t.test('reset() forgets a beep in progress and restarts stream time', async (t) => {
  const rate = 16000;
  const pcm = toInt16(toneClip(rate, 1200, 400, 600, 600));
  const det = new BeepDetector({ sampleRateHz: rate });
  const half = Math.round(rate * 0.9);  // 100 ms of the tone left
  t.same(feed(det, pcm.subarray(0, half), rate), [], 'nothing yet, mid-tone');
  det.reset();
  t.equal(det.lastBeep, null);
  t.same(feed(det, pcm.subarray(half), rate), [], 'the last 100 ms of the tone alone are too short');
  det.reset();
  const again = feed(det, pcm, rate);
  t.equal(again.length, 1);
  t.ok(Math.abs(again[0].endMs - 1000) <= 15, `end ${again[0].endMs} ms counted from the reset`);
});

t.test('bad arguments throw clear errors', async (t) => {
  t.throws(() => new BeepDetector({ sampleRateHz: 44100 }),
    { code: 'VC_ERR_NATIVE_UNSUPPORTED_RATE', message: /sampleRateHz must be one of 8000, 16000/ });
  t.throws(() => new BeepDetector({} as never), { code: 'VC_ERR_BAD_OPTION', message: /sampleRateHz is required/ });
  t.throws(() => new BeepDetector({ sampleRateHz: 8000, frameMs: 20 } as never), { code: 'VC_ERR_BAD_OPTION', message: /frameMs is not known/ });
  t.throws(() => new BeepDetector({ sampleRateHz: '8000' } as never), { code: 'VC_ERR_BAD_OPTION' });
  const det = new BeepDetector({ sampleRateHz: 8000 });
  t.throws(() => det.process(new Float32Array(160) as never), { code: 'VC_ERR_NATIVE_INVALID_ARGUMENT', message: /expects an Int16Array/ });
  t.throws(() => det.process(undefined as never), { code: 'VC_ERR_NATIVE_INVALID_ARGUMENT' });
  t.equal(det.process(new Int16Array(0)), null, 'an empty chunk is fine');
});
