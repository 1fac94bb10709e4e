// A caller whose first word opens on a short loud vowel ("Excuse me", "Is there") on a clean
// line: the vowel gives 60-70 ms of evidence far over the bar, then its consonants sit under it,
// and the cut-in waited for the next vowel (185-273 ms). Evidence far over the noise and the
// expected echo (18-20 dB) now interrupts after 60% of minDurationMs (kStrongExcess and
// kFullBonusExcess in bargein_tuning.h): medians 191-233 -> 71-78 ms here. Callers who open on a longer
// voiced stretch ("Actually", "Um") were already at about 100 ms and stay under it.
import t from 'tap';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, echoOf, median, noise, speak, toInt16 } from './corpus.js';

const VOICES = ['en-us+m3', 'en-gb+f3', 'en-us+f4'];
const CUT_INTO_PHRASE_MS = 150;

for (const rateHz of [16000, 8000]) {
  const agent = agentTrack(rateHz);
  const ref = toInt16(agent.pcm);
  const hiss = noise('white', agent.pcm.length, rateHz, 5);
  // Latency from the caller's first sample over 300 to each interruption, for one text, every
  // voice and four agent phrases.
  const latencies = (text: string, hissGain = 30) =>
    VOICES.flatMap((voice) => {
      const cut = speak(text, voice, rateHz);
      let first = 0;
      while (Math.abs(cut[first]) < 300) first++;
      return [2, 3, 4, 5].map((phrase) => {
        const at = Math.round(((agent.onsetsMs[phrase] + CUT_INTO_PHRASE_MS) * rateHz) / 1000);
        const mic = toInt16(Float32Array.from(hiss, (h, i) => {
          const j = i - at + first;
          return hissGain * h + (j >= 0 && j < cut.length ? 0.5 * cut[j] : 0);
        }));
        const atMs = (at / rateHz) * 1000;
        return interruptionsAt(mic, ref, { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } })
          .map((ms) => ms - atMs)
          .find((d) => d >= -20) ?? Infinity;
      });
    });

  for (const text of ['Excuse me, I did not catch that.', 'Is there a cheaper option?', 'Actually, wait.', 'Um, one quick question.']) {
    t.test(`${rateHz / 1000} kHz, "${text}"`, async (t) => {
      const ms = latencies(text);
      t.ok(median(ms) <= 100, `median ${median(ms)} ms (<= 100): ${ms.join(', ')}`);
      t.ok(Math.max(...ms) <= 300, `slowest ${Math.max(...ms)} ms (<= 300)`);
    });
  }

  // On a line 20 dB noisier the first vowel stands 15-19 dB over the noise: at 8 kHz, the full
  // bonus from 18 dB takes a third of these cut-ins within 100 ms; from 20 dB (round 26) none
  // was (231-293 ms: the rest of the word waited for "-cuse me").
  if (rateHz === 8000) {
    t.test('8 kHz, "Excuse me" over a noisier line', async (t) => {
      const ms = latencies('Excuse me, I did not catch that.', 300);
      t.ok(ms.filter((d) => d <= 100).length >= ms.length / 3, `within 100 ms: ${ms.filter((d) => d <= 100).length} of ${ms.length} (${ms.join(', ')})`);
      t.ok(Math.max(...ms) <= 300, `slowest ${Math.max(...ms)} ms (<= 300)`);
    });
  }

  // Loud echo is where evidence far over the bar could come from the agent (an echo gain not yet
  // learned). The 400 ms paths at -6/-10 dB raise one interruption at their first onset in every
  // build (a known limit, docs/benchmarks-turns.md) and are left out.
  for (const delayMs of [30, 120, 250]) {
    t.test(`${rateHz / 1000} kHz: a -6/-10/-20 dB echo at ${delayMs} ms alone raises nothing`, async (t) => {
      for (const lossDb of [6, 10, 20]) {
        const echo = echoOf(agent.pcm, rateHz, delayMs, lossDb);
        const mic = toInt16(echo.map((v, i) => v + 30 * hiss[i]));
        t.same(interruptionsAt(mic, ref, { micRateHz: rateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } }), [], `-${lossDb} dB`);
      }
    });
  }
}
