// G.711 μ-law, written out here from the ITU-T G.711 / Sun reference algorithm so the fake
// carrier does not share code with the native codec it is used to test.

const BIAS = 0x84;
const CLIP = 32635;

export function linearToMulaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.trunc(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; exponent--, mask >>= 1);
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + BIAS) << exponent) - BIAS;
  return sign ? -magnitude : magnitude;
}

/** PCM16 (Int16Array, or little-endian bytes) → μ-law bytes. */
export function encodeMulaw(pcm: Int16Array | Buffer): Buffer {
  const count = pcm instanceof Int16Array ? pcm.length : Math.floor(pcm.length / 2);
  const at = (i: number) => (pcm instanceof Int16Array ? pcm[i] : pcm.readInt16LE(i * 2));
  const out = Buffer.alloc(count);
  for (let i = 0; i < count; i++) out[i] = linearToMulaw(at(i));
  return out;
}

export function decodeMulaw(law: Uint8Array): Int16Array {
  const out = new Int16Array(law.length);
  for (let i = 0; i < law.length; i++) out[i] = mulawToLinear(law[i]);
  return out;
}

/** A sine tone as PCM16 at `rateHz`, for tests that need audio that is not silence. */
export function tone(freqHz: number, ms: number, rateHz = 8000, amplitude = 8000): Int16Array {
  const n = Math.round((rateHz * ms) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * Math.sin((2 * Math.PI * freqHz * i) / rateHz));
  return out;
}
