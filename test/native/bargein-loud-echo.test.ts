// A loud echo path the call has not learned yet (-6 to -13 dB return loss, 100-550 ms delay, the
// engine's maxEchoDelayMs 600 and minDurationMs 100): the agent's own echo must not interrupt it
// once the echo's delay is known. The echo gain starts at -20 dB; it used to creep up 0.09 dB per
// hop even after the delay was found, so a -6/-10 dB path passed as the caller again in the
// agent's next phrase, and -13 dB at 550 ms (or -10 dB at 350 ms) in the first. Until round 19
// the gain also fell from the agent's first word, before a long path's echo had arrived: -6 dB
// from 350 ms and -10 dB from 450 ms passed as the caller once, before the delay was known.
import t from 'tap';
import { agentLine, engineInterruptionsAt } from './barge-in-run.js';
import { FRAME_MS, echoOf, speechTrack, toInt16 } from './corpus.js';

const DELAYS_MS = [100, 250, 350, 450, 550];
const LOSSES_DB = [6, 10, 13];

for (const rateHz of [16000, 8000]) {
  const { agent, ref, hiss } = agentLine(rateHz);
  // The end of the agent's first phrase (its first pause): the echo of that phrase is where the
  // delay is found.
  let f = Math.round(agent.onsetsMs[0] / FRAME_MS);
  while (agent.labels[f]) f++;
  const firstPhraseEndMs = f * FRAME_MS;

  t.test(`${rateHz / 1000} kHz: a loud echo path, caller silent`, async (t) => {
    for (const delayMs of DELAYS_MS) {
      for (const lossDb of LOSSES_DB) {
        const mic = toInt16(echoOf(agent.pcm, rateHz, delayMs, lossDb).map((v, i) => v + 30 * hiss[i]));
        const at = engineInterruptionsAt(rateHz, mic, ref);
        const name = `${delayMs} ms / -${lossDb} dB`;
        t.same(at.filter((ms) => ms > firstPhraseEndMs + delayMs), [], `${name}: nothing raised after the echo of the first phrase (${at.join(', ') || 'none at all'})`);
        t.same(at, [], `${name}: nothing raised at all, before the delay is known either`);
      }
    }
  });

  t.test(`${rateHz / 1000} kHz: a caller over a loud echo path, later in the call, is still heard`, async (t) => {
    // The faster learning must not teach the bound the caller: a caller at the agent's level
    // cuts in 10 s and 20 s into the call, over a -10 dB, 350 ms path.
    const caller = speechTrack(rateHz, 3, 4);
    const echo = echoOf(agent.pcm, rateHz, 350, 10);
    const onset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
    for (const atMs of [10_000, 20_000]) {
      const shift = Math.round((atMs * rateHz) / 1000) - onset;
      const mic = toInt16(echo.map((v, i) => {
        const j = i - shift;
        return v + 30 * hiss[i] + (j >= onset && j < onset + 1.5 * rateHz ? caller.pcm[j] : 0);
      }));
      const latency = engineInterruptionsAt(rateHz, mic, ref).map((ms) => ms - atMs).find((d) => d >= 0);
      t.ok(latency !== undefined && latency <= 400, `cut-in at ${atMs / 1000} s: interrupted after ${latency} ms (<= 400)`);
    }
  });
}
