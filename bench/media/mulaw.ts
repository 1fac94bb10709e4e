// G.711 μ-law as a Node developer would write it for the carrier baseline: lookup tables (256
// entries to decode, 16,384 to encode by the sample's top 14 bits). Also builds the load
// client's caller audio. ITU-T G.711 / Sun reference algorithm.

const BIAS = 0x84;
const CLIP = 32635;

function linearToMulaw(sample: number): number {
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

export const MULAW_DECODE = new Int16Array(256);
for (let b = 0; b < 256; b++) {
  const u = ~b & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + BIAS) << ((u >> 4) & 0x07)) - BIAS;
  MULAW_DECODE[b] = u & 0x80 ? -magnitude : magnitude;
}

/** Indexed by (sample >> 2) & 0x3fff (the sample's top 14 bits, two's complement). */
const MULAW_ENCODE = new Uint8Array(16384);
for (let i = 0; i < 16384; i++) MULAW_ENCODE[i] = linearToMulaw(((i << 18) >> 16) + 2);

export function mulawDecode(law: Uint8Array, out: Int16Array): void {
  for (let i = 0; i < law.length; i++) out[i] = MULAW_DECODE[law[i]];
}

export function mulawEncode(pcm: Int16Array, out: Uint8Array): void {
  for (let i = 0; i < pcm.length; i++) out[i] = MULAW_ENCODE[(pcm[i] >> 2) & 0x3fff];
}
