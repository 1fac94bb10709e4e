// The barge-in detector's per-hop trace (MediaChannel.traceHops, src/audio/hop-trace.ts): off, it
// costs nothing and reads empty; on, it changes no decision, and each hop of each frame a message
// made is there in order, with the verdicts the detector acted on (evidence, the run's credit) and
// the figures it judged them by.
import t from 'tap';
import { ChannelEvents, MediaChannel, type MediaChannelOptions } from '../../src/audio/native.js';
import { HopFlags, readHops, type TracedHop } from '../../src/audio/hop-trace.js';
import { FRAME_MS, agentTrack, echoOf, speechTrack, toInt16 } from './corpus.js';

const RATE = 16000;
const FRAME = (RATE * FRAME_MS) / 1000;
const MESSAGE_FRAMES = 3; // a message of 60 ms: three frames, six hops
const options: MediaChannelOptions = { inRateHz: RATE, procRateHz: RATE, refRateHz: RATE, frameMs: FRAME_MS, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } };

const agent = agentTrack(RATE);
const ref = toInt16(agent.pcm);
const caller = speechTrack(RATE, 3, 1);
const CUT_AT_MS = agent.onsetsMs[2] + 150;
/** The agent's echo (120 ms, -12 dB), and the caller cutting in 150 ms into the third phrase at `gain`. */
function micWith(gain: number): Int16Array {
  const mic = echoOf(agent.pcm, RATE, 120, 12);
  const at = Math.round((CUT_AT_MS * RATE) / 1000);
  const from = Math.round((caller.onsetsMs[0] * RATE) / 1000);
  for (let i = 0; from + i < caller.pcm.length && at + i < mic.length; i++) mic[at + i] += gain * caller.pcm[from + i];
  return toInt16(mic);
}
const CALL_MS = CUT_AT_MS + 2000;

interface Run { events: number[]; probabilities: number[]; hops: TracedHop[]; interruptionsMs: number[]; tracedWhileOff: number }
function run(mic: Int16Array, trace: boolean): Run {
  const channel = new MediaChannel(options);
  if (trace) channel.traceHops(true);
  const out: Run = { events: [], probabilities: [], hops: [], interruptionsMs: [], tracedWhileOff: 0 };
  const messages = Math.floor(CALL_MS / (FRAME_MS * MESSAGE_FRAMES));
  for (let m = 0; m < messages; m++) {
    const from = m * MESSAGE_FRAMES * FRAME, to = from + MESSAGE_FRAMES * FRAME;
    channel.pushReference(ref.subarray(from, to));
    const frames = channel.process(new Uint8Array(mic.buffer, mic.byteOffset + 2 * from, 2 * (to - from)));
    out.events.push(channel.events);
    out.probabilities.push(...channel.callerProbabilities.subarray(0, frames));
    if (channel.events & ChannelEvents.interruption) out.interruptionsMs.push((m + 1) * MESSAGE_FRAMES * FRAME_MS);
    if (trace) out.hops.push(...readHops(channel, frames));
    else out.tracedWhileOff += channel.hopTrace.length;
  }
  return out;
}

t.test('tracing changes no decision, and every hop is there in order', async (t) => {
  const mic = micWith(0.5);
  const plain = run(mic, false), traced = run(mic, true);
  t.equal(plain.tracedWhileOff, 0, 'no trace while off');
  t.same(traced.events, plain.events, 'the same events on every message');
  t.same(traced.probabilities, plain.probabilities, 'the same caller probabilities on every frame');
  t.equal(traced.hops.length, plain.probabilities.length * (FRAME_MS / 10), 'two hops per 20 ms frame');
  t.ok(traced.hops.every((h, i) => h.streamMs === i * 10), 'each hop 10 ms after the last, from the stream\'s start');
  t.ok(plain.interruptionsMs.length > 0, 'the caller interrupts');
});

t.test('the hops show the evidence run that raised the interruption, and what it was judged by', async (t) => {
  const loud = run(micWith(0.5), true);
  const first = loud.interruptionsMs[0];
  const before = loud.hops.filter((h) => h.streamMs < CUT_AT_MS - 20);
  t.equal(before.filter((h) => h.flags & HopFlags.evidence).length, 0, 'no evidence over the echo alone');
  t.ok(before.some((h) => h.delayHops >= 0 && h.flags & HopFlags.echoSeen), 'an echo delay trusted before the caller');
  const delay = before.at(-1)!.delayHops;
  t.ok(Math.abs(delay - 12) <= 1, `the trusted delay ${delay} hops is the path's 120 ms`);
  const run_ = loud.hops.filter((h) => h.streamMs >= CUT_AT_MS - 20 && h.streamMs < first);
  const evidence = run_.filter((h) => h.flags & HopFlags.evidence);
  t.ok(evidence.length >= 6, `${evidence.length} evidence hops between the onset and the interruption`);
  t.ok(evidence.every((h) => h.excess >= 3 || (h.flags & HopFlags.nearBar && h.excess >= 2) || h.flags & (HopFlags.waveform | HopFlags.bandResidual)), "each one over the bar, just under it at a run's end, or heard by a double-talk test");
  t.ok(Math.max(...run_.map((h) => h.creditMs)) >= 100 - 0.01, 'the run\'s credit reached minDurationMs (100 ms)');
  // A caller 12 dB quieter: their first evidence hops hear a sixteenth of the power.
  const quiet = run(micWith(0.125), true);
  const heardAfter = (r: Run) => r.hops.filter((h) => h.streamMs >= CUT_AT_MS && h.streamMs < CUT_AT_MS + 300).reduce((s, h) => s + h.heard, 0);
  const echoOnly = run(micWith(0), true);
  const ratio = (heardAfter(loud) - heardAfter(echoOnly)) / (heardAfter(quiet) - heardAfter(echoOnly));
  t.ok(ratio > 10 && ratio < 25, `the caller's power over the echo scales with their level (x${ratio.toFixed(1)} for 12 dB)`);
});

t.test('traceHops takes a boolean; off again, the trace reads empty', async (t) => {
  const channel = new MediaChannel(options);
  t.throws(() => channel.traceHops('yes' as never), /boolean/);
  channel.traceHops(true);
  channel.pushReference(ref.subarray(0, FRAME));
  t.equal(channel.process(new Uint8Array(2 * FRAME)), 1);
  t.equal(readHops(channel, 1).length, 2);
  channel.traceHops(false);
  t.equal(channel.hopTrace.length, 0);
});
