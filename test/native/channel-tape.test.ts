// The benchmark's call tape (bench/turns/channel-tape.ts): a MediaChannel's input recorded as a
// call feeds it (reference pushes with a pacer's lead, caller messages of uneven sizes) plays back
// through a fresh channel with the same interruptions at the same messages; options given to the
// player change what it raises; a tape cut mid-record plays up to the cut.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';
import t from 'tap';
import { ChannelEvents, MediaChannel, type MediaChannelOptions } from '../../src/audio/native.js';
import { playTape, recordTape } from '../../bench/turns/channel-tape.js';
import { FRAME_MS, agentTrack, echoOf, speechTrack, toInt16 } from './corpus.js';

const RATE = 16000;
const FRAME = (RATE * FRAME_MS) / 1000;

const dir = mkdtempSync(join(tmpdir(), 'tape-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const agent = agentTrack(RATE);
const ref = toInt16(agent.pcm);
const echo = echoOf(agent.pcm, RATE, 120, 12);
const caller = speechTrack(RATE, 3, 2);
// The caller cuts in 150 ms into the agent's third and fifth phrases.
const mic = Float32Array.from(echo);
for (const phrase of [2, 4]) {
  const at = Math.round(((agent.onsetsMs[phrase] + 150) * RATE) / 1000);
  const from = Math.round((caller.onsetsMs[0] * RATE) / 1000);
  for (let i = 0; i < 1.2 * RATE && at + i < mic.length; i++) mic[at + i] += 0.5 * caller.pcm[from + i];
}
const micPcm = toInt16(mic);
const frames = Math.floor(micPcm.length / FRAME);

/** The call as the engine feeds it: 60 ms of reference ahead, then one frame per caller frame. */
function feed(channel: MediaChannel, clock: { ms: number }): number[] {
  const raised: number[] = [];
  let pushed = 0;
  const push = (n: number) => {
    for (let k = 0; k < n && pushed < frames; k++, pushed++) channel.pushReference(ref.subarray(pushed * FRAME, (pushed + 1) * FRAME));
  };
  push(3);
  for (let f = 0; f < frames; ) {
    const take = f % 7 === 3 ? 2 : 1; // now and then two frames in one message
    const bytes = new Uint8Array(micPcm.buffer, f * FRAME * 2, Math.min(take, frames - f) * FRAME * 2);
    clock.ms += FRAME_MS * take;
    if (channel.process(bytes.slice()) > 0 && channel.events & ChannelEvents.interruption) raised.push(clock.ms);
    push(take);
    f += take;
  }
  return raised;
}

const options: MediaChannelOptions = { inRateHz: RATE, procRateHz: RATE, refRateHz: RATE, frameMs: FRAME_MS, maxMessageBytes: 4096, bargeIn: { minDurationMs: 100, maxEchoDelayMs: 600 } };
const path = join(dir, 'call.tape');
const channel = new MediaChannel(options);
const clock = { ms: 1_000_000 };
const tape = recordTape(channel, path, () => clock.ms);
const live = feed(channel, clock);
tape.end();
await once(tape, 'finish');

t.test('the tape replays the live interruptions at the same messages', async (t) => {
  t.ok(live.length >= 2, `the call raised interruptions (${live.join(', ')})`);
  const play = playTape(path);
  t.same(play.interruptions, live);
  t.equal(play.from, 1_000_000 + FRAME_MS);
  t.equal(play.to, clock.ms);
});

t.test('options given to the player change what it raises', async (t) => {
  const slower = playTape(path, { minDurationMs: 300 });
  t.ok(slower.interruptions.length >= 1);
  t.ok(slower.interruptions[0] >= live[0] + 150, `300 ms of speech needed: ${slower.interruptions[0] - live[0]} ms later`);
});

t.test('a tape cut mid-record plays up to the cut', async (t) => {
  const whole = readFileSync(path);
  const cut = join(dir, 'cut.tape');
  writeFileSync(cut, whole.subarray(0, Math.floor(whole.length / 2) + 5));
  const play = playTape(cut);
  t.ok(play.to < clock.ms && play.to > 1_000_000);
  t.same(play.interruptions, live.filter((x) => x <= play.to));
});
