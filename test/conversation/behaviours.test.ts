import t from 'tap';
import { chatChunk, writeChatStream } from '../fakes/wire/openai.js';
import { sleep } from '../fakes/wire/server.js';
import { Phrases } from '../../src/conversation/phrases.js';
import { call, isAssistant, isUser, openAiPipeline, sessionRow, setupAgent, speech, startCallTests } from './fixtures.js';

// The agent's behaviours through the real socket: idle reminder then hang-up, the goodbye
// before max_duration, the dead-air filler, the character budget and ambience.

const { h, fake, media } = await startCallTests(t);


t.test('idle: a reminder after idle_warn_seconds, then hang-up with idle_timeout', async (t) => {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { idle_warn_seconds: 1, idle_hangup_seconds: 5 });
  const { caller, sessionId } = await call(h, media, setup);
  const started = performance.now();
  const reminder = await caller.waitFor(isAssistant, 8000);
  t.equal(reminder.frame.text, Phrases.idleReminder);
  t.ok(reminder.at - started >= 900, 'not before idle_warn_seconds');
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 12_000);
  t.equal(ended.frame.reason, 'idle_timeout');
  t.ok(ended.at - started >= 5000, `hang-up after idle_hangup_seconds (${Math.round(ended.at - started)} ms)`);
  t.same(caller.frames('transcript').map((f) => f.text), [Phrases.idleReminder, Phrases.idleGoodbye]);
  t.equal((await caller.closed).code, 1000);
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.same([row.status, row.end_reason], ['completed', 'idle_timeout']);
  t.ok(row.connected_seconds >= 6 && row.connected_seconds <= 9, 'billed for the idle time and the goodbye');
});

t.test('caller speech resets the idle clock', async (t) => {
  fake.script.transcripts = ['hello there'];
  fake.script.replies = ['Hi.'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { idle_warn_seconds: 2, idle_hangup_seconds: 30 });
  const { caller } = await call(h, media, setup);
  caller.silence(1200);
  caller.say(speech('Hello there.'));
  await caller.waitFor(isUser, 10_000);
  const answered = await caller.waitFor((f) => f.type === 'turn_complete', 10_000);
  const reminder = await caller.waitFor((f) => isAssistant(f) && f.text === Phrases.idleReminder, 8000);
  t.ok(reminder.at - answered.at >= 1900, 'the reminder counts from the end of the last turn');
  caller.hangUp();
  await caller.closed;
});

t.test('max duration: a goodbye, then the call ends with max_duration', async (t) => {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { max_duration_seconds: 10 });
  const { caller, sessionId } = await call(h, media, setup);
  const started = performance.now();
  const goodbye = await caller.waitFor(isAssistant, 12_000);
  t.equal(goodbye.frame.text, Phrases.maxDurationGoodbye);
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 12_000);
  t.equal(ended.frame.reason, 'max_duration');
  t.ok(ended.at - started <= 10_400, `ended by the limit (${Math.round(ended.at - started)} ms)`);
  t.ok(goodbye.at < ended.at, 'goodbye first');
  await caller.closed;
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.equal(row.end_reason, 'max_duration');
  t.equal(row.connected_seconds, 10);
});

t.test('dead air: a filler when the answer is late', async (t) => {
  fake.script.transcripts = ['are you there'];
  fake.on('POST /v1/chat/completions', async (_req, res) => {
    await sleep(2500);
    await writeChatStream(res, [chatChunk({ role: 'assistant', content: '' }), chatChunk({ content: 'Yes, I am here.' }), chatChunk({}, 'stop')]);
  });
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { dead_air_seconds: 1 });
  const { caller } = await call(h, media, setup);
  caller.silence(300);
  caller.say(speech('Are you there?'));
  const user = await caller.waitFor(isUser, 10_000);
  const filler = await caller.waitFor(isAssistant, 10_000);
  t.equal(filler.frame.text, Phrases.filler);
  t.ok(filler.at - user.at >= 900, 'after dead_air_seconds');
  const answer = await caller.waitFor((f) => isAssistant(f) && f.text === 'Yes, I am here.', 10_000);
  t.ok(answer.at > filler.at);
  t.equal(caller.frames('turn_complete').length, 1, 'the filler is not a turn');
  caller.hangUp();
  await caller.closed;
});

t.test('max_chars_per_min: text beyond the budget is not spoken, and an error frame says so', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) =>
    writeChatStream(res, [chatChunk({ role: 'assistant', content: '' }), chatChunk({ content: 'This is a short first sentence. ' }), chatChunk({ content: 'This second sentence goes well over the fifty character budget.' }), chatChunk({}, 'stop')]),
  );
  fake.script.transcripts = ['talk to me'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { max_chars_per_min: 50 });
  const { caller } = await call(h, media, setup);
  caller.silence(300);
  caller.say(speech('Talk to me.'));
  const err = await caller.waitFor((f) => f.type === 'error', 15_000);
  t.match(String(err.frame.message), /max_chars_per_min/);
  await caller.waitFor((f) => f.type === 'turn_complete', 10_000);
  t.equal(caller.frames('transcript').filter((f) => f.role === 'assistant').map((f) => f.text).join(), 'This is a short first sentence.');
  const speechReqs = fake.requests.filter((r) => r.path === '/v1/audio/speech').map((r) => JSON.parse(r.body.toString()).input);
  t.notOk(speechReqs.some((s: string) => s.startsWith('This second')), 'the sentence over budget was never synthesized');
  caller.hangUp();
  await caller.closed;
});

t.test('ambience is mixed in continuously, between turns too', async (t) => {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { ambience_sound: 'pink_noise', ambience_level: 40 });
  const { caller } = await call(h, media, setup);
  await sleep(1500);
  const frames = caller.audio.length;
  t.ok(frames >= 60, `about 50 frames a second with nobody speaking (${frames} in 1.5 s)`);
  const last = caller.audio[caller.audio.length - 1].pcm;
  const rms = Math.sqrt(last.reduce((n, v) => n + v * v, 0) / last.length);
  t.ok(rms > 50, `the frames carry the ambience (rms ${Math.round(rms)})`);
  caller.hangUp();
  await caller.closed;
});
