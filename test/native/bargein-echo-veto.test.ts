// The echo veto (round 25, bargein_tuning.h kEchoVeto): an evidence hop while the agent speaks whose
// waveform follows the reference at 0.8 or more near the trusted delay, or at the lag the mic's
// band shape matches now, is the echo, whatever the echo bound expected. An echo path whose
// delay jumps every 8 s (a jitter buffer playing the rest later) met a bound still at the old
// lag: with the engine's 600 ms window, one false interruption on each of these lines at 16 kHz
// with round 24's build. The 8 kHz lines still raise one each (docs/benchmarks-turns.md).
import t from 'tap';
import { agentLine, engineInterruptionsAt, withCaller } from './barge-in-run.js';
import { activePower, echoOf, speechTrack, toInt16 } from './corpus.js';

const RATE = 16000;
const DELAYS = [60, 200, 340, 160, 280, 120];

/** The echo of `paths[k]` during the k-th 8 s of the call. */
const jumping = (pcm: Float32Array, paths: Float32Array[]) =>
  pcm.map((_, i) => paths[Math.min(paths.length - 1, Math.floor(i / (8 * RATE)))][i]);

for (const lossDb of [6, 8, 10]) {
  t.test(`an echo at -${lossDb} dB whose delay jumps every 8 s, caller silent: no interruption`, async (t) => {
    const { agent, ref, hiss } = agentLine(RATE);
    const paths = DELAYS.map((ms) => echoOf(agent.pcm, RATE, ms, lossDb));
    const mic = toInt16(jumping(agent.pcm, paths).map((v, i) => v + 30 * hiss[i]));
    t.same(engineInterruptionsAt(RATE, mic, ref), [], `${DELAYS.join(' / ')} ms, 8 s each`);
  });
}

t.test('a caller 15 dB over such a line\'s echo, after a jump, is still heard at once', async (t) => {
  const { agent, ref, hiss } = agentLine(RATE);
  const lossDb = 10;
  const paths = DELAYS.map((ms) => echoOf(agent.pcm, RATE, ms, lossDb));
  const caller = speechTrack(RATE, 3, 2);
  const gain = Math.sqrt(activePower(agent) / activePower(caller)) * 10 ** (-(lossDb - 15) / 20);
  const atMs = agent.onsetsMs.find((ms) => ms > 17_000)! + 150;
  const mic = withCaller(RATE, jumping(agent.pcm, paths), hiss, caller, gain, atMs);
  const at = engineInterruptionsAt(RATE, mic, ref);
  t.same(at.filter((ms) => ms < atMs), [], 'nothing raised before the caller');
  const latency = at.map((ms) => ms - atMs).find((d) => d >= 0);
  t.ok(latency !== undefined && latency <= 150, `interrupted after ${latency?.toFixed(0)} ms (<= 150)`);
});
