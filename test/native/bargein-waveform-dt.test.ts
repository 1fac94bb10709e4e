// The waveform double-talk test (round 23, bargein_tuning.h kWaveDtFloor): once an echo delay is
// trusted, a hop the energy test leaves under the echo bound is the caller's when its waveform
// does not follow the reference near that delay as closely as the echo alone does on the line.
// A caller 10 dB over a -16 dB path's echo, 150 ms into the call's third utterance, was heard
// after 191 ms by round 22's build (the energy test needs ~13 dB); the echo alone, on the same
// agent line and paths (and a louder one), must still raise nothing. An echo past the detector's
// window (its delay then rests on the window's edge) is bargein.test.ts's delay-jump case. The
// echo alone starts with the call, so the test before a delay is trusted hears it too.
import t from 'tap';
import { agentLine, engineInterruptionsAt, withCaller } from './barge-in-run.js';
import { activePower, echoOf, speechTrack, toInt16 } from './corpus.js';

const RATE = 16000;

t.test('a caller 10 dB over their echo, late in the call, is heard within 150 ms', async (t) => {
  const { agent, ref, hiss } = agentLine(RATE);
  const caller = speechTrack(RATE, 3, 2);
  const lossDb = 16;
  const overDb = 10;
  const gain = Math.sqrt(activePower(agent) / activePower(caller)) * 10 ** (-(lossDb - overDb) / 20);
  const atMs = agent.onsetsMs[2] + 150;
  const mic = withCaller(RATE, echoOf(agent.pcm, RATE, 250, lossDb), hiss, caller, gain, atMs);
  const at = engineInterruptionsAt(RATE, mic, ref);
  t.same(at.filter((ms) => ms < atMs), [], 'nothing raised before the caller');
  const latency = at.map((ms) => ms - atMs).find((d) => d >= 0);
  t.ok(latency !== undefined && latency <= 150, `interrupted after ${latency} ms (<= 150; round 22: 191)`);
});

// Before any delay is trusted (round 24, kWaveDtBar0): the initial bound masks a caller 15 dB
// under the agent for the call's first ~600 ms; a hop whose waveform follows the reference at no
// lag of the window is theirs, and hops that plainly do not follow it count as strong ones.
// Round 23's build: 198, 218, 216 and 216 ms.
const FIRST_WORDS: [rateHz: number, underDb: number, lossDb: number | null, delayMs: number][] = [
  [16000, 15, null, 0],
  [16000, 18, 30, 100],
  [8000, 15, 30, 200],
  [8000, 12, 25, 300],
];
for (const [rateHz, underDb, lossDb, delayMs] of FIRST_WORDS) {
  const line = lossDb === null ? 'no echo' : `echo ${delayMs} ms -${lossDb} dB`;
  t.test(`${rateHz / 1000} kHz, ${line}: a caller ${underDb} dB under the agent cutting into the greeting`, async (t) => {
    const { agent, ref, hiss } = agentLine(rateHz);
    const caller = speechTrack(rateHz, 3, 2);
    const gain = Math.sqrt(activePower(agent) / activePower(caller)) * 10 ** (-underDb / 20);
    const echo = lossDb === null ? new Float32Array(agent.pcm.length) : echoOf(agent.pcm, rateHz, delayMs, lossDb);
    const atMs = agent.onsetsMs[0] + 150;
    const mic = withCaller(rateHz, echo, hiss, caller, gain, atMs);
    const at = engineInterruptionsAt(rateHz, mic, ref);
    t.same(at.filter((ms) => ms < atMs), [], 'nothing raised before the caller');
    const latency = at.map((ms) => ms - atMs).find((d) => d >= 0);
    t.ok(latency !== undefined && latency <= 180, `interrupted after ${latency?.toFixed(0)} ms (<= 180)`);
  });
}

for (const rateHz of [16000, 8000]) {
  t.test(`${rateHz / 1000} kHz: the echo alone raises nothing`, async (t) => {
    const { agent, ref, hiss } = agentLine(rateHz);
    for (const [delayMs, lossDb] of [[40, 20], [150, 24], [250, 16], [120, 8]]) {
      const echo = echoOf(agent.pcm, rateHz, delayMs, lossDb);
      const at = engineInterruptionsAt(rateHz, toInt16(echo.map((v, i) => v + 30 * hiss[i])), ref);
      t.same(at, [], `echo ${delayMs} ms -${lossDb} dB: no interruption`);
    }
  });
}

// A caller 18-22 dB under the agent sits at the initial bound's own level, and the caller scorer
// calls their hops quiet (round 26, kWaveDtBarMasked): such a hop is theirs when its waveform
// follows the reference at no lag of the window under 0.3. Round 25's build: 178, 218 and 196 ms.
const MASKED_WORDS: [rateHz: number, underDb: number, intoMs: number, withinMs: number][] = [
  [16000, 20, 250, 170],
  [16000, 22, 250, 190],
  [8000, 18, 150, 185],
];
for (const [rateHz, underDb, intoMs, withinMs] of MASKED_WORDS) {
  t.test(`${rateHz / 1000} kHz, no echo: a caller ${underDb} dB under the agent, ${intoMs} ms into the greeting`, async (t) => {
    const { agent, ref, hiss } = agentLine(rateHz);
    const caller = speechTrack(rateHz, 3, 2);
    const gain = Math.sqrt(activePower(agent) / activePower(caller)) * 10 ** (-underDb / 20);
    const atMs = agent.onsetsMs[0] + intoMs;
    const mic = withCaller(rateHz, new Float32Array(agent.pcm.length), hiss, caller, gain, atMs);
    const at = engineInterruptionsAt(rateHz, mic, ref);
    t.same(at.filter((ms) => ms < atMs), [], 'nothing raised before the caller');
    const latency = at.map((ms) => ms - atMs).find((d) => d >= 0);
    t.ok(latency !== undefined && latency <= withinMs, `interrupted after ${latency?.toFixed(0)} ms (<= ${withinMs})`);
  });
}
