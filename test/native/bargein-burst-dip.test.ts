// The syllable after a stop is not a slam's tail. Hops 12 dB under a recent hop far over the
// bound are taken for the decay of a door slam or clatter (kBurstFallLog2), and a soft syllable
// after a short loud vowel was held for 100 ms after it (153-169 ms here). A hop 6 dB over the
// lowest since that loud hop is a new onset (kBurstRiseLog2), and counts.
import t from 'tap';
import { loudThenSoft } from './vowel.js';

for (const rateHz of [16000, 8000]) {
  t.test(`${rateHz / 1000} kHz: a syllable rising out of a stop counts at once`, async (t) => {
    // It starts 70 ms in; two or three hops of it make the 100 ms with the loud vowel's credit. At
    // 20 dB under, its own first hops are far over the bound and were held all the same.
    for (const softDb of [20, 26]) {
      const ms = loudThenSoft(rateHz, softDb);
      t.ok(ms.every((d) => d <= 130), `soft vowel ${softDb} dB under: ${ms.map((d) => Math.round(d)).join(', ')} ms (each <= 130)`);
    }
  });
}
