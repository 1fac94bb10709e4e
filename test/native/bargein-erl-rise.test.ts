// A quiet caller over a known echo path: the echo gain learned while the caller is judged quiet
// must not learn the caller. Their first hops under the echo bound score a caller probability of
// 0.23-0.29 (the line's own hops about 0.14), and when those hops raised the gain it climbed to
// the caller's level and masked them (a taped live call: -21 -> -11.5 dB in 40 ms). The gain now
// rises only on hops under 0.2 (round 22). Callers 15-18 dB under the agent (about -35 to -38
// dBFS), cutting into a later utterance of the call; round 20's build took 600 ms, 1.8 s and
// missed one.
import t from 'tap';
import { agentLine, engineInterruptionsAt } from './barge-in-run.js';
import { activePower, echoOf, speechTrack, toInt16 } from './corpus.js';

const CASES = [
  { rateHz: 16000, voice: 1, text: 2, delayMs: 200, lossDb: 20, underDb: 18, utterance: 1, intoMs: 300, withinMs: 400 },
  { rateHz: 16000, voice: 1, text: 2, delayMs: 120, lossDb: 24, underDb: 18, utterance: 2, intoMs: 100, withinMs: 1000 },
  { rateHz: 8000, voice: 3, text: 1, delayMs: 300, lossDb: 17, underDb: 15, utterance: 1, intoMs: 200, withinMs: 1500 },
  // Once a delay is trusted, a hop that would lift the gain over 3 dB teaches it only if the mic's
  // waveform follows the reference at the delay (round 28, kErlWaveRise): the masked caller's own
  // hops, scored under 0.2, taught it. Round 27's build: 910, 330 and 340 ms.
  { rateHz: 8000, voice: 1, text: 2, delayMs: 200, lossDb: 20, underDb: 18, utterance: 1, intoMs: 250, withinMs: 700 },
  { rateHz: 8000, voice: 1, text: 2, delayMs: 200, lossDb: 20, underDb: 15, utterance: 1, intoMs: 250, withinMs: 290 },
  { rateHz: 8000, voice: 3, text: 2, delayMs: 60, lossDb: 20, underDb: 15, utterance: 1, intoMs: 100, withinMs: 300 },
];

for (const c of CASES) {
  const name = `${c.rateHz / 1000} kHz, echo ${c.delayMs} ms -${c.lossDb} dB, a caller ${c.underDb} dB under the agent ${c.intoMs} ms into utterance ${c.utterance + 1}`;
  t.test(name, async (t) => {
    const { agent, ref, hiss } = agentLine(c.rateHz);
    const caller = speechTrack(c.rateHz, c.voice, c.text);
    const callerOnset = Math.round((caller.onsetsMs[0] * c.rateHz) / 1000);
    const gain = Math.sqrt(activePower(agent) / activePower(caller)) * 10 ** (-c.underDb / 20);
    const echo = echoOf(agent.pcm, c.rateHz, c.delayMs, c.lossDb);
    const atMs = agent.onsetsMs[c.utterance] + c.intoMs;
    const shift = Math.round((atMs * c.rateHz) / 1000) - callerOnset;
    const mic = toInt16(echo.map((v, i) => {
      const j = i - shift;
      return v + 30 * hiss[i] + (j >= callerOnset && j < caller.pcm.length ? gain * caller.pcm[j] : 0);
    }));
    const at = engineInterruptionsAt(c.rateHz, mic, ref);
    t.same(at.filter((ms) => ms < atMs), [], 'nothing raised before the caller');
    const latency = at.map((ms) => ms - atMs).find((d) => d >= 0);
    t.ok(latency !== undefined && latency <= c.withinMs, `interrupted after ${latency} ms (<= ${c.withinMs})`);
  });
}
