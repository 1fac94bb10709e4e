// G.711 μ-law as a Node developer would write it for the carrier baseline: lookup tables (256
// entries to decode, 16,384 to encode by the sample's top 14 bits), built from the reference
// algorithm the fake carrier uses. Also builds the load client's caller audio.

import { linearToMulaw, mulawToLinear } from '../../test/fakes/twilio/mulaw.js';

export const MULAW_DECODE = Int16Array.from({ length: 256 }, (_, b) => mulawToLinear(b));

/** Indexed by (sample >> 2) & 0x3fff (the sample's top 14 bits, two's complement). */
const MULAW_ENCODE = new Uint8Array(16384);
for (let i = 0; i < 16384; i++) MULAW_ENCODE[i] = linearToMulaw(((i << 18) >> 16) + 2);

export function mulawDecode(law: Uint8Array, out: Int16Array): void {
  for (let i = 0; i < law.length; i++) out[i] = MULAW_DECODE[law[i]];
}

export function mulawEncode(pcm: Int16Array, out: Uint8Array): void {
  for (let i = 0; i < pcm.length; i++) out[i] = MULAW_ENCODE[(pcm[i] >> 2) & 0x3fff];
}
