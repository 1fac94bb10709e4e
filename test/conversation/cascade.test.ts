import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { getTranscript } from '../../src/transcripts/index.js';
import { call, openAiPipeline, sessionRow, setupAgent, speech, startAgentMedia } from './fixtures.js';

// A whole cascade call through the real media socket against the OpenAI wire fakes:
// greeting, a caller turn (VAD + transcription), the streamed answer, transcripts,
// turn_complete, hang-up and settlement.

const h = await startHarness();
const fake = await startProviderFakes({ transcripts: ['what time is it'], replies: ['It is noon. Anything else?'] });
const media = await startAgentMedia(h);
t.teardown(async () => {
  await media.drain(0);
  await fake.close();
  await h.close();
});

t.test('greeting, one caller turn, an answer, then hang-up', async (t) => {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { greeting: 'Hello {{name}}.', store_transcript: true });
  const { caller, sessionId } = await call(h, media, setup);
  const greeting = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant');
  t.equal(greeting.frame.text, 'Hello Ann.', 'greeting rendered with the variables');
  await caller.waitForCount('turn_complete', 1);
  t.ok(caller.audio.length > 10, 'greeting audio arrived');

  caller.silence(300);
  caller.say(speech('What time is it?'), 'ask');
  caller.silence(1500);
  const user = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 15_000);
  t.equal(user.frame.text, 'what time is it');
  const answer = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text !== 'Hello Ann.', 15_000);
  t.equal(answer.frame.text, 'It is noon. Anything else?');
  await caller.waitForCount('turn_complete', 2);
  t.ok(caller.audioSamplesAfter(user.at) > 24000 * 0.5, 'answer audio arrived after the user transcript');

  // The LLM saw the system prompt (rendered), the greeting and the caller's words.
  const chat = fake.requests.filter((r) => r.path === '/v1/chat/completions');
  t.equal(chat.length, 1);
  const sent = JSON.parse(chat[0].body.toString());
  t.equal(sent.messages[0].content, 'You are a helpful agent for Ann.');
  t.same(sent.messages.slice(1).map((m: { role: string; content: string }) => [m.role, m.content]), [['assistant', 'Hello Ann.'], ['user', 'what time is it']]);
  t.equal(sent.stream, true);
  t.ok(sent.tools.some((tool: { function: { name: string } }) => tool.function.name === 'end_call'), 'end_call is always offered');

  caller.hangUp();
  const closed = await caller.closed;
  t.equal(closed.code, 1000);
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.equal(row.status, 'completed');
  t.equal(row.end_reason, 'caller_hangup');

  // The transcript is stored with the settlement (store_transcript), times from the media connect.
  const stored = await getTranscript(h.ctx.sql, sessionId);
  t.same(stored.map((e) => [e.role, e.text]), [['assistant', 'Hello Ann.'], ['user', 'what time is it'], ['assistant', 'It is noon. Anything else?']]);
  t.ok(stored.every((e, i) => e.end_ms >= e.start_ms && (i === 0 || e.start_ms >= stored[i - 1].start_ms)), 'times are ordered');
});

t.test('without store_transcript nothing is kept', async (t) => {
  fake.script.transcripts = ['hi'];
  fake.script.replies = ['Hello.'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller, sessionId } = await call(h, media, setup);
  caller.silence(300);
  caller.say(speech('Hi.'));
  await caller.waitForCount('turn_complete', 1, 15_000);
  caller.hangUp();
  await caller.closed;
  await media.idle();
  t.same(await getTranscript(h.ctx.sql, sessionId), []);
});
