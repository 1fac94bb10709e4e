import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import type { RealtimeScript } from '../fakes/wire/openai-realtime.js';
import { Phrases } from '../../src/conversation/phrases.js';
import { call, sessionRow, setupAgent, speech, startAgentMedia } from './fixtures.js';
import { realtimePipeline, sent, until, words } from './realtime-support.js';

// The realtime engine (OpenAI Realtime wire fake, server VAD by energy) through the real media
// socket: the greeting is interrupted like an answer (interrupted with heard, the item
// truncated, the caller's words answered) unless interruptible_greeting is false, an idle
// goodbye the caller cuts calls the hang-up off, and the realtime stage's endpointing_ms is
// the server VAD's silence_duration_ms.

const h = await startHarness();
const media = await startAgentMedia(h);
const fakes: { close(): Promise<void> }[] = [];
t.teardown(async () => {
  await media.drain(0);
  for (const f of fakes) await f.close();
  await h.close();
});

async function realtimeFake(realtime: RealtimeScript) {
  const fake = await startProviderFakes({ realtime: { vad: 'energy', tone: true, delayMs: 5, ...realtime } });
  fakes.push(fake);
  return fake;
}

const GREETING = 'Hello Ann, thank you for calling the city clinic. I can help you book, move or cancel an appointment today.';
// About six seconds of greeting, a word every three chunks of audio (the fake sends the i-th
// word with the i-th chunk), generated faster than real time as the service does.
const slowly = (text: string) => {
  const spread = words(text).flatMap((w) => [w, '', '']);
  return { words: spread, chunks: spread.length, samplesPerChunk: 2400 };
};
const greetingResponse = slowly(GREETING);

t.test('endpointing_ms of the realtime stage is the server VAD silence (default 500 ms)', async (t) => {
  const fake = await realtimeFake({ responses: [{ words: ['Hi.'], chunks: 4, samplesPerChunk: 2400 }] });
  for (const [stage, expected] of [[{ endpointing_ms: 900 }, 900], [{}, 500]] as const) {
    const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl, stage), { pipeline_mode: 'realtime' });
    const before = fake.sockets.length;
    const { caller } = await call(h, media, setup);
    const sock = await until('the realtime socket', () => fake.sockets.slice(before).find((s) => s.path === '/v1/realtime'));
    const update = await until('session.update', () => sent(sock, 'session.update')[0]);
    t.match(update.session.audio.input.turn_detection, { type: 'server_vad', silence_duration_ms: expected }, `silence_duration_ms ${expected}`);
    caller.hangUp();
    await caller.closed;
  }
});

t.test('the greeting is interrupted: heard, the item truncated, the caller answered', async (t) => {
  const fake = await realtimeFake({ transcripts: ['what are your hours'], responses: [greetingResponse, { words: ['We', ' open', ' at', ' nine.'], chunks: 8, samplesPerChunk: 2400 }] });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello {{name}}.' });
  const { caller } = await call(h, media, setup);
  const first = await until('greeting audio', () => caller.audio.find((a) => a.pcm.some((v) => Math.abs(v) > 2000)));
  await new Promise((r) => setTimeout(r, Math.max(0, first.at + 1500 - performance.now())));
  caller.say(speech('What are your hours?'), 'barge');
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  const heard = String(interrupted.frame.heard);
  t.ok(heard.length > 0 && GREETING.startsWith(heard) && heard.length < GREETING.length / 2, `heard is a prefix of the greeting: "${heard}"`);
  t.ok(interrupted.at - caller.marks.get('barge')! < 1000, 'interrupted while the caller speaks');
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  const truncate = await until('truncate', () => sent(sock, 'conversation.item.truncate')[0]);
  t.ok(truncate.audio_end_ms > 500 && truncate.audio_end_ms < 3000, `the greeting item is truncated at what played (${truncate.audio_end_ms} ms)`);
  const cut = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant');
  t.equal(cut.frame.text, heard, 'the greeting transcript is what was heard');
  const user = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 15_000);
  t.equal(user.frame.text, 'what are your hours');
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'We open at nine.', 15_000);
  t.equal(caller.frames('turn_complete').length, 1, 'turn_complete for the answer only');
  caller.hangUp();
  await caller.closed;
});

t.test('interruptible_greeting false: the greeting plays to the end', async (t) => {
  const fake = await realtimeFake({ transcripts: ['can you hear me'], responses: [greetingResponse] });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello {{name}}.', interruptible_greeting: false });
  const { caller } = await call(h, media, setup);
  const first = await until('greeting audio', () => caller.audio.find((a) => a.pcm.some((v) => Math.abs(v) > 2000)));
  await new Promise((r) => setTimeout(r, Math.max(0, first.at + 1500 - performance.now())));
  caller.say(speech('Hello, can you hear me?'));
  await caller.waitFor((f) => f.type === 'turn_complete', 15_000);
  t.equal(caller.frames('interrupted').length, 0, 'not interrupted');
  t.equal(caller.frames('transcript').find((f) => f.role === 'assistant')?.text, GREETING, 'the whole greeting');
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  t.equal(sent(sock, 'conversation.item.truncate').length, 0, 'nothing truncated');
  caller.hangUp();
  await caller.closed;
});

t.test('an idle goodbye the caller cuts: interrupted, the hang-up called off, the caller answered', async (t) => {
  const fake = await realtimeFake({ transcripts: ['wait i am still here'], responses: [slowly(Phrases.idleGoodbye), { words: ['Great,', ' how', ' can', ' I', ' help?'], chunks: 8, samplesPerChunk: 2400 }] });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', idle_hangup_seconds: 5 });
  const { caller, sessionId } = await call(h, media, setup);
  const first = await until('goodbye audio', () => caller.audio.find((a) => a.pcm.some((v) => Math.abs(v) > 2000)), 10_000);
  await new Promise((r) => setTimeout(r, Math.max(0, first.at + 1000 - performance.now())));
  caller.say(speech('Wait, I am still here.'));
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  const heard = String(interrupted.frame.heard);
  t.ok(heard.length > 0 && Phrases.idleGoodbye.startsWith(heard) && heard.length < Phrases.idleGoodbye.length, `heard is a prefix of the goodbye: "${heard}"`);
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user' && f.text === 'wait i am still here', 15_000);
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'Great, how can I help?', 15_000);
  await caller.waitForCount('turn_complete', 1);
  await new Promise((r) => setTimeout(r, 1500));
  t.notOk(caller.closedInfo, 'the call goes on');
  caller.hangUp();
  await caller.closed;
  await media.idle();
  t.equal((await sessionRow(h, sessionId)).end_reason, 'caller_hangup');
});
