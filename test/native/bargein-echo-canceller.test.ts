// A caller quieter than the agent's own echo (a -9 dB, 310 ms path; the caller 4 dB under that
// echo, as in the held-out set's "echo 310 ms -9 dB" call) cutting in late in the call, once the
// sample-domain echo canceller has learned the path: the band bound alone (echo bound plus a 6 dB
// margin) masked such callers. Before the canceller, 445 / 358 / 979 ms at 16 kHz and
// 605 / 758 / 780 ms at 8 kHz for the three cut-ins below. Not asserted, as no better with it:
// the agent's second and third phrases (6.5 and 12 s: missed either way), its fifth (26 s:
// 635 / 413 ms either way) and seventh (38 s: 155 / 295 ms either way).
// The engine's maxEchoDelayMs 600 and minDurationMs 100; the reference at the mic's rate and, on
// the web's 16 kHz mic, at the 24 kHz a browser plays.
import t from 'tap';
import { Resampler } from '../../src/audio/native.js';
import { interruptionsAt } from './barge-in-run.js';
import { agentTrack, echoOf, loudPower, noise, speechTrack, toInt16 } from './corpus.js';

const DELAY_MS = 310;
const LOSS_DB = 9;
const UNDER_ECHO_DB = 4;

const raised = (rateHz: number, mic: Int16Array, ref: Int16Array, refRateHz = rateHz): number[] =>
  interruptionsAt(mic, ref, { micRateHz: rateHz, refRateHz, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600, echoCancellerMs: 32 } });

for (const rateHz of [16000, 8000]) {
  const agent = agentTrack(rateHz);
  const ref = toInt16(agent.pcm);
  const hiss = noise('white', agent.pcm.length, rateHz, 5);
  const echo = echoOf(agent.pcm, rateHz, DELAY_MS, LOSS_DB);
  const caller = speechTrack(rateHz, 3, 4);
  const gain = Math.sqrt((loudPower(echo, rateHz) / loudPower(caller.pcm, rateHz)) * 10 ** (-UNDER_ECHO_DB / 10));
  const onset = Math.round((caller.onsetsMs[0] * rateHz) / 1000);
  // Cut-ins 150 ms into the agent's fourth, sixth and eighth phrases (20, 32 and 45 s).
  const cutIns = [3, 5, 7].map((i) => Math.round(agent.onsetsMs[i] + 150));

  const micWith = (atMs: number) => {
    const shift = Math.round((atMs * rateHz) / 1000) - onset;
    return toInt16(echo.map((v, i) => {
      const j = i - shift;
      return v + 30 * hiss[i] + (j >= onset && j < onset + 1.5 * rateHz ? gain * caller.pcm[j] : 0);
    }));
  };
  // What a browser plays: the agent at 24 kHz (the echo path hears it the same).
  const refs: [number, Int16Array][] = [[rateHz, ref]];
  if (rateHz === 16000) {
    const up = new Resampler({ inRateHz: 16000, outRateHz: 24000, maxInputSamples: ref.length });
    refs.push([24000, up.output.slice(0, up.process(ref))]);
  }

  for (const [refRateHz, played] of refs) {
    t.test(`${rateHz / 1000} kHz mic, ${refRateHz / 1000} kHz reference: the caller 4 dB under a -9 dB echo is heard late in the call`, async (t) => {
      for (const atMs of cutIns) {
        const latency = raised(rateHz, micWith(atMs), played, refRateHz).map((ms) => ms - atMs).find((d) => d >= 0);
        t.ok(latency !== undefined && latency <= 400, `cut-in at ${(atMs / 1000).toFixed(1)} s: interrupted after ${latency} ms (<= 400)`);
      }
    });
  }

  t.test(`${rateHz / 1000} kHz: the same echo with the caller silent raises nothing`, async (t) => {
    const mic = toInt16(echo.map((v, i) => v + 30 * hiss[i]));
    t.same(raised(rateHz, mic, ref), [], 'no interruption over the whole agent track');
  });
}
