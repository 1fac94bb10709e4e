// A quiet caller who cuts into the agent's first utterance of a call (maxEchoDelayMs 600,
// minDurationMs 100, the engine's settings). Until a delay is trusted, each lag of the echo
// window bounds the mic at what that lag has shown, and a lag the agent's speech has only just
// reached still bounds it at the initial -20 dB: the utterance's front sweeps through the window
// a lag per 10 ms, so a caller 21 dB under the agent stayed masked until the front left the
// window or the agent paused (1-1.8 s at 16 kHz 100 ms in, round 19; 290 ms now). Lags the front reaches after the caller
// started cannot hold an echo that was already on the line, and leave the bound (round 20).
import t from 'tap';
import { agentLine, engineInterruptionsAt } from './barge-in-run.js';
import { activePower, echoOf, speechTrack, toInt16 } from './corpus.js';

// From 100 ms: a caller in the first 50 ms meets lags the agent's speech has barely passed with
// the mic quiet, where a short echo path could still be as loud as they are (not covered here).
const CUT_IN_MS = [100, 150, 250];
const UNDER_AGENT_DB = [18, 21];  // about -38 / -41 dBFS under a -20 dBFS agent
const LINES = [
  { name: 'no echo', delayMs: 0, lossDb: 0 },
  { name: 'a faint echo (140 ms, -35 dB)', delayMs: 140, lossDb: 35 },
];

for (const rateHz of [16000, 8000]) {
  const { agent, ref, hiss } = agentLine(rateHz);
  const caller = speechTrack(rateHz, 3, 1);
  const callerOnset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
  const agentLevel = activePower(agent);
  const callerLevel = activePower(caller);

  t.test(`${rateHz / 1000} kHz: a caller 18-21 dB under the agent, 100-250 ms into its first utterance`, async (t) => {
    for (const line of LINES) {
      const echo = line.delayMs ? echoOf(agent.pcm, rateHz, line.delayMs, line.lossDb) : new Float32Array(agent.pcm.length);
      for (const underDb of UNDER_AGENT_DB) {
        const gain = Math.sqrt(agentLevel / callerLevel) * 10 ** (-underDb / 20);
        for (const intoMs of CUT_IN_MS) {
          const atMs = agent.onsetsMs[0] + intoMs;
          const shift = Math.round((atMs * rateHz) / 1000) - callerOnset;
          const mic = toInt16(echo.map((v, i) => {
            const j = i - shift;
            return v + 30 * hiss[i] + (j >= callerOnset && j < caller.pcm.length ? gain * caller.pcm[j] : 0);
          }));
          const at = engineInterruptionsAt(rateHz, mic, ref);
          t.same(at.filter((ms) => ms < atMs), [], `${line.name}, ${underDb} dB under, ${intoMs} ms in: nothing raised before the caller`);
          const latency = at.map((ms) => ms - atMs).find((d) => d >= 0);
          t.ok(latency !== undefined && latency <= 400, `${line.name}, ${underDb} dB under, ${intoMs} ms in: interrupted after ${latency} ms (<= 400)`);
        }
      }
    }
  });
}
