// A vowel that rises into its loudest hop is no burst. Hops 12 dB under a recent hop far over the
// bound are taken for the decay of a door slam (kBurstFallLog2); a caller far over the line who
// opens on a vowel ("Is there", 25-40 dB over a quiet line) rose into burst hops, and the
// consonant after it was held as the vowel's tail for 100 ms: 145-225 ms here, on a clean line and
// over two echo paths. A run whose loudest hop came two or more hops after its first and 3 dB over
// them rose as a voice does (kBurstRampLog2): its consonant counts. A slam, loudest at once, keeps
// its tail (bargein-lines.test.ts, bargein-slam-horn.test.ts). Such consonants are often heard by a
// double-talk test, under the echo bound: they no longer take away the known line's 85 ms
// (kKnownLineEchoShare; a voice at 8 kHz went 73 -> 233 ms without that).
import t from 'tap';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, echoOf, median, noise, speak, toInt16 } from './corpus.js';

const LINES = [
  { name: 'a clean line', delayMs: 0, lossDb: 0 },
  { name: 'echo 310 ms, -18 dB', delayMs: 310, lossDb: 18 },
  { name: 'echo 30 ms, -20 dB', delayMs: 30, lossDb: 20 },
];

/**
 * Latencies (ms from the caller's first sample over 300 to the interruption) of "Is there a cheaper
 * option?" said by `voice` at `gain` over the agent's phrases 2-5, cut 150 and 280 ms in, on a
 * line of white hiss and `echo`.
 */
function cutIns(rateHz: number, voice: string, gain: number, line: (typeof LINES)[number]): number[] {
  const agent = agentTrack(rateHz);
  const ref = toInt16(agent.pcm);
  const hiss = noise('white', agent.pcm.length, rateHz, 5);
  const echo = line.delayMs ? echoOf(agent.pcm, rateHz, line.delayMs, line.lossDb) : new Float32Array(agent.pcm.length);
  const cut = speak('Is there a cheaper option?', voice, rateHz);
  let first = 0;
  while (Math.abs(cut[first]) < 300) first++;
  return [2, 3, 4, 5].flatMap((phrase) =>
    [150, 280].map((intoMs) => {
      const at = Math.round(((agent.onsetsMs[phrase] + intoMs) * rateHz) / 1000);
      const mic = toInt16(Float32Array.from(hiss, (h, i) => {
        const j = i - at + first;
        return 30 * h + echo[i] + (j >= 0 && j < cut.length ? gain * cut[j] : 0);
      }));
      const atMs = (at / rateHz) * 1000;
      return interruptionsAt(mic, ref, { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } })
        .map((d) => Math.round(d - atMs))
        .find((d) => d >= -20) ?? Infinity;
    }),
  );
}

for (const rateHz of [16000, 8000]) {
  for (const line of LINES) {
    t.test(`${rateHz / 1000} kHz, "Is there" on ${line.name}`, async (t) => {
      const ms = cutIns(rateHz, 'en-gb-scotland+travis', 0.5, line);
      t.ok(median(ms) <= 90, `median ${median(ms)} ms (<= 90; the vowel's tail held it to 155-203): ${ms.join(', ')}`);
      t.ok(ms.filter((d) => d <= 100).length >= 5, `within 100 ms: ${ms.filter((d) => d <= 100).length} of 8 (>= 5)`);
    });
  }
}

// A quieter voice on the clean 8 kHz line: one consonant hop heard by a double-talk test joined the
// run and, held to the echo share, cost the known line's 85 ms (73 -> 233 ms).
t.test('8 kHz, a quieter "Is there" on a clean line keeps the known line\'s 85 ms', async (t) => {
  const ms = cutIns(8000, 'en-us+m3', 0.15, LINES[0]);
  t.ok(ms.filter((d) => d <= 100).length >= 7, `within 100 ms: ${ms.filter((d) => d <= 100).length} of 8 (>= 7): ${ms.join(', ')}`);
});
