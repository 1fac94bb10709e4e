// G.711 mu-law and A-law: code round trips, reference values, quantisation SNR.
import t from 'tap';
import { G711 } from '../../src/audio/native.js';

t.test('every code decodes and re-encodes to itself', async (t) => {
  const codes = Uint8Array.from({ length: 256 }, (_, i) => i);
  const mu = G711.mulawEncode(G711.mulawDecode(codes));
  const a = G711.alawEncode(G711.alawDecode(codes));
  for (let i = 0; i < 256; i++) {
    if (i !== 0x7f) t.equal(mu[i], i, `mu-law ${i}`);  // 0x7F is -0, which encodes as +0 (0xFF)
    t.equal(a[i], i, `A-law ${i}`);
  }
});

t.test('reference values', async (t) => {
  const pcm = Int16Array.from([0, 1000, -1000, 32767, -32768]);
  t.same(Array.from(G711.mulawEncode(pcm)), [0xff, 0xce, 0x4e, 0x80, 0x00]);
  t.same(Array.from(G711.alawEncode(pcm)), [0xd5, 0xfa, 0x7a, 0xaa, 0x2a]);
  t.same(Array.from(G711.mulawDecode(Uint8Array.from([0xff, 0x80, 0x00]))), [0, 32124, -32124]);
  t.same(Array.from(G711.alawDecode(Uint8Array.from([0xd5, 0xaa, 0x2a]))), [8, 32256, -32256]);
});

t.test('sine round trip keeps ~38 dB SNR and is monotonic', async (t) => {
  const n = 8000;
  const x = Int16Array.from({ length: n }, (_, i) => Math.round(10000 * Math.sin(i * 0.0371)));
  for (const [name, enc, dec] of [['mu', G711.mulawEncode, G711.mulawDecode], ['A', G711.alawEncode, G711.alawDecode]] as const) {
    const y = dec(enc(x));
    let s = 0, e = 0;
    for (let i = 0; i < n; i++) { s += x[i] ** 2; e += (x[i] - y[i]) ** 2; }
    t.ok(10 * Math.log10(s / e) > 35, `${name}-law SNR ${(10 * Math.log10(s / e)).toFixed(1)} dB`);
    const ramp = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const r = dec(enc(ramp));
    let mono = true;
    for (let i = 1; i < r.length; i++) if (r[i] < r[i - 1]) mono = false;
    t.ok(mono, `${name}-law decode(encode(x)) is monotonic`);
  }
});

t.test('short output buffers are rejected', async (t) => {
  t.throws(() => G711.mulawEncode(new Int16Array(10), new Uint8Array(5)), { code: 'VC_ERR_NATIVE_BUFFER_TOO_SMALL' });
});

t.test('mulawBase64: the μ-law of PCM16LE bytes as the base64 text Node would give', async (t) => {
  const out = new Uint8Array(600);
  for (const samples of [0, 1, 2, 3, 4, 5, 159, 160, 161]) {
    const pcm = new Int16Array(samples);
    for (let i = 0; i < samples; i++) pcm[i] = Math.round(30000 * Math.sin(i * 0.7)) - (i % 7) * 11;
    const expected = Buffer.from(G711.mulawEncode(pcm)).toString('base64');
    // Odd byte offsets too: the bytes need not be 16-bit aligned.
    for (const at of [0, 1]) {
      const bytes = new Uint8Array(samples * 2 + at).subarray(at);
      bytes.set(new Uint8Array(pcm.buffer));
      out.fill(0x2a);
      const n = G711.mulawBase64(bytes, out, 7);
      t.equal(Buffer.from(out.subarray(7, 7 + n)).toString('latin1'), expected, `${samples} samples at byte offset ${at}`);
      t.equal(out[6], 0x2a, 'nothing written before the offset');
      t.equal(out[7 + n], 0x2a, 'nor after the text');
    }
  }
  t.throws(() => G711.mulawBase64(new Uint8Array(3), out, 0), { code: 'VC_ERR_NATIVE_INVALID_ARGUMENT' }, 'odd byte count');
  t.throws(() => G711.mulawBase64(new Uint8Array(320), new Uint8Array(215), 0), { code: 'VC_ERR_NATIVE_BUFFER_TOO_SMALL' }, '160 samples need 216 characters');
  t.throws(() => G711.mulawBase64(new Uint8Array(320), new Uint8Array(300), 100), { code: 'VC_ERR_NATIVE_BUFFER_TOO_SMALL' }, 'counting from the offset');
});
