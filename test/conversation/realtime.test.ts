import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { WireFake } from '../fakes/wire/server.js';
import { INVALID_KEY } from '../fakes/wire/openai.js';
import { realtimeError, type RealtimeScript } from '../fakes/wire/openai-realtime.js';
import { DtmfDetector } from '../../src/audio/native.js';
import { call, sessionRow, setupAgent, speech, startAgentMedia } from './fixtures.js';
import { realtimePipeline, sent, until, words, type Msg } from './realtime-support.js';

// Whole calls in `pipeline_mode: realtime` through the real media socket against the OpenAI
// Realtime wire fake (GA events, server VAD by energy): greeting, caller turns answered by the
// server's VAD, transcripts both ways, turn_complete, a barge-in that truncates the assistant
// item at what was played, a tool call round trip, end_call, idle and max-duration goodbyes,
// and the provider's errors mapped onto `error` frames and `provider_error`.

const h = await startHarness();
const toolCalls: { tool: string; args: unknown }[] = [];
const media = await startAgentMedia(h, {
  conversation: {
    toolRunner: () => async (tool, args) => {
      toolCalls.push({ tool, args });
      if (tool === 'slow_lookup') await new Promise((r) => setTimeout(r, 2500));
      return { ok: true, result: { status: 'shipped', eta: 'today' } };
    },
  },
});
const fakes: { close(): Promise<void> }[] = [];
t.teardown(async () => {
  await media.drain(0);
  for (const f of fakes) await f.close();
  await h.close();
});

/** A provider fake whose realtime socket follows `realtime`. */
async function realtimeFake(realtime: RealtimeScript) {
  const responses: { responseId: string; itemId: string; metadata: unknown; words: string[] }[] = [];
  const fake = await startProviderFakes({ realtime: { vad: 'energy', tone: true, delayMs: 5, onResponse: (r) => responses.push(r), ...realtime } });
  fakes.push(fake);
  return Object.assign(fake, { responses });
}


t.test('greeting, caller turns, answers, transcripts, turn_complete and a barge-in that truncates the item', async (t) => {
  const story = 'Once upon a time there was a small robot who lived in a lighthouse by the sea and counted the ships that passed every night.';
  const fake = await realtimeFake({
    transcripts: ['what time is it', 'tell me a story', 'stop please'],
    responses: [
      { words: ['Hello', ' Ann.'], chunks: 10, samplesPerChunk: 2400 },
      { words: ['It', ' is', ' noon.'], chunks: 12, samplesPerChunk: 2400 },
      // 6 s of audio, generated faster than real time as the service does.
      { words: words(story), chunks: 60, samplesPerChunk: 2400 },
      { words: ['Okay,', ' I', ' stopped.'], chunks: 8, samplesPerChunk: 2400 },
    ],
  });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello {{name}}.' });
  const { caller, sessionId } = await call(h, media, setup);

  // The greeting is the model's first response, asked for with our words.
  const greeting = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant');
  t.equal(greeting.frame.text, 'Hello Ann.');
  await caller.waitForCount('turn_complete', 1);
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  t.equal(sock.headers.authorization, 'Bearer sk-test-openai-0000');
  t.equal(sock.query.get('model'), 'gpt-realtime');
  const update = sent(sock, 'session.update')[0];
  t.match(update.session, {
    type: 'realtime',
    instructions: 'You are a helpful agent for Ann.',
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        turn_detection: { type: 'server_vad', create_response: true, interrupt_response: true },
        transcription: { model: 'gpt-4o-mini-transcribe', language: 'en' },
      },
      output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'marin' },
    },
  });
  t.ok(update.session.tools.some((x: Msg) => x.name === 'end_call'), 'end_call is offered');
  const greet = sent(sock, 'response.create')[0];
  t.match(greet.response, { metadata: { vas_purpose: 'greeting' } });
  t.match(greet.response.instructions, /"Hello Ann\."/);
  t.ok(sent(sock, 'input_audio_buffer.append').length > 0, 'caller audio streams up');

  // A caller turn: the server's VAD ends it and answers on its own.
  caller.silence(600);
  caller.say(speech('What time is it?'));
  caller.silence(1500);
  const user = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 15_000);
  t.equal(user.frame.text, 'what time is it');
  const answer = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text !== 'Hello Ann.', 15_000);
  t.equal(answer.frame.text, 'It is noon.');
  await caller.waitForCount('turn_complete', 2);
  t.equal(sent(sock, 'response.create').length, 1, 'the answer came from the server VAD (create_response), not from us');
  t.ok(caller.audioSamplesAfter(user.at - 2000) > 24000 * 0.8, 'answer audio arrived');

  // The long answer; the caller barges in about 1.5 s into it.
  caller.silence(600);
  caller.say(speech('Tell me a story.'));
  caller.silence(800);
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user' && f.text === 'tell me a story', 15_000);
  const storyStart = await until('story audio', () => {
    const a = caller.audio.find((x) => x.at > performance.now() - 5000 && x.pcm.some((v) => Math.abs(v) > 2000) && x.at > user.at + 1500);
    return a?.at;
  });
  await new Promise((r) => setTimeout(r, Math.max(0, storyStart + 1500 - performance.now())));
  const bargeAt = performance.now();
  caller.say(speech('Stop please, stop.'));
  caller.silence(1500);
  const interrupted = await caller.waitFor((f) => f.type === 'interrupted', 10_000);
  const heard = String(interrupted.frame.heard);
  t.ok(heard.length > 0 && story.startsWith(heard) && heard.length < story.length, `heard is a proper prefix of the answer: "${heard}"`);
  t.ok(interrupted.at - bargeAt < 1500, `interrupted within ${Math.round(interrupted.at - bargeAt)} ms of the caller speaking`);
  const truncate = await until('truncate', () => sent(sock, 'conversation.item.truncate')[0]);
  const storyItem = fake.responses.find((r) => r.words[0] === 'Once')!;
  t.equal(truncate.item_id, storyItem.itemId, 'the truncated item is the one being played');
  t.equal(truncate.content_index, 0);
  const playedMs = interrupted.at - storyStart;
  t.ok(truncate.audio_end_ms > 500 && truncate.audio_end_ms < 6000, `audio_end_ms ${truncate.audio_end_ms} is within the item`);
  t.ok(Math.abs(truncate.audio_end_ms - playedMs) < 700, `audio_end_ms ${truncate.audio_end_ms} ≈ played ${Math.round(playedMs)} ms`);
  const partial = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && String(f.text).startsWith('Once'));
  t.equal(partial.frame.text, heard, 'the assistant transcript keeps only what was heard');
  // Playback stopped: little story audio after the interruption (the client dropped its queue too).
  const after = caller.audio.filter((a) => a.at > interrupted.at + 300 && a.at < interrupted.at + 900).reduce((n, a) => n + a.pcm.length, 0);
  t.ok(after < 24000 * 0.2, `audio stopped after the interruption (${after} samples)`);
  const turnsBefore = caller.frames('turn_complete').length;

  // The interrupting words are the caller's next turn.
  const stop = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user' && f.text === 'stop please', 15_000);
  t.ok(stop.at > interrupted.at);
  const last = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'Okay, I stopped.', 15_000);
  t.ok(last);
  await caller.waitForCount('turn_complete', turnsBefore + 1);
  t.equal(caller.frames('turn_complete').length, 3, 'no turn_complete for the interrupted answer');

  caller.hangUp();
  t.equal((await caller.closed).code, 1000);
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.equal(row.status, 'completed');
  t.equal(row.end_reason, 'caller_hangup');
});

t.test('a tool call round trip (function_call → function_call_output → response), then end_call', async (t) => {
  const fake = await realtimeFake({
    transcripts: ['where is my order 42', 'thanks, bye'],
    responses: [
      { functionCall: { name: 'lookup_order', arguments: '{"order":"42"}' } },
      { words: ['Your', ' order', ' ships', ' today.'], chunks: 8, samplesPerChunk: 2400 },
      // The model says goodbye and calls end_call in the same response.
      { words: ['Goodbye!'], chunks: 6, samplesPerChunk: 2400, functionCall: { name: 'end_call', arguments: '{}' } },
    ],
  });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), {
    pipeline_mode: 'realtime',
    tools: [{ type: 'function', name: 'lookup_order', description: 'Find an order', parameters: { type: 'object', properties: { order: { type: 'string' } }, required: ['order'] } }],
    tool_webhook_url: 'https://tools.example.com/hook',
  });
  toolCalls.length = 0;
  const { caller, sessionId } = await call(h, media, setup);
  caller.silence(400);
  caller.say(speech('Where is my order forty two?'));
  caller.silence(1500);
  const answer = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant', 15_000);
  t.equal(answer.frame.text, 'Your order ships today.');
  t.same(toolCalls, [{ tool: 'lookup_order', args: { order: '42' } }], 'the tool ran with the model’s arguments');
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  const update = sent(sock, 'session.update')[0];
  t.ok(update.session.tools.some((x: Msg) => x.name === 'lookup_order' && x.type === 'function'), 'the agent tool is declared');
  const output = sent(sock, 'conversation.item.create').find((m) => m.item.type === 'function_call_output')!;
  t.ok(output, 'the result went back as function_call_output');
  t.match(output.item.call_id, /^call_fake/);
  t.same(JSON.parse(output.item.output), { result: { status: 'shipped', eta: 'today' } });
  const msgs = sock.messages as Msg[];
  t.ok(msgs.indexOf(output) < msgs.findIndex((m) => m.type === 'response.create'), 'response.create after the output');
  t.match(sent(sock, 'response.create')[0].response, { metadata: { vas_purpose: 'answer' } });
  await caller.waitForCount('turn_complete', 1);

  // "Goodbye!" and end_call: the call ends agent_hangup once the goodbye has played.
  caller.silence(600);
  caller.say(speech('Thanks, bye.'));
  caller.silence(1200);
  const bye = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'Goodbye!', 15_000);
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 15_000);
  t.equal(ended.frame.reason, 'agent_hangup');
  t.ok(ended.at >= bye.at, 'after the last words');
  t.equal(caller.frames('turn_complete').length, 2);
  t.equal(sent(sock, 'conversation.item.create').filter((m) => m.item.type === 'function_call_output').length, 1, 'end_call needs no output');
  t.equal((await caller.closed).code, 1000);
  await media.idle();
  t.equal((await sessionRow(h, sessionId)).end_reason, 'agent_hangup');
});

t.test('a slow tool: the dead-air filler is a response we ask for; send_dtmf plays the keys', async (t) => {
  const fake = await realtimeFake({
    transcripts: ['look it up', 'press one two'],
    responses: [
      { functionCall: { name: 'slow_lookup', arguments: '{}' } },
      { words: ['One', ' moment,', ' please.'], chunks: 8, samplesPerChunk: 2400 },
      { words: ['Found', ' it.'], chunks: 6, samplesPerChunk: 2400 },
      { functionCall: { name: 'send_dtmf', arguments: '{"digits":"12"}' } },
      { words: ['Done.'], chunks: 4, samplesPerChunk: 2400 },
    ],
  });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), {
    pipeline_mode: 'realtime',
    dead_air_seconds: 1,
    can_send_dtmf: true,
    tools: [{ type: 'function', name: 'slow_lookup', description: 'Takes a while', parameters: { type: 'object', properties: {} } }],
    tool_webhook_url: 'https://tools.example.com/hook',
  });
  const { caller } = await call(h, media, setup, { sample_rate_out: 16000 });
  caller.silence(400);
  caller.say(speech('Look it up please.'));
  caller.silence(1500);
  const found = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'Found it.', 15_000);
  t.same(caller.frames('transcript').filter((f) => f.role === 'assistant').map((f) => f.text), ['One moment, please.', 'Found it.'], 'the filler is transcribed (as in the cascade)');
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  t.same(sent(sock, 'response.create').map((m) => m.response.metadata.vas_purpose), ['filler', 'answer']);
  t.match(sent(sock, 'response.create')[0].response.instructions, /One moment, please\./);
  // 0.8 s of filler then 0.6 s of answer: more than the answer alone was played.
  const loud = caller.audio.filter((a) => a.at <= found.at + 1000 && a.pcm.some((v) => Math.abs(v) > 2000)).length * 0.02;
  t.ok(loud > 1.1, `the filler played while the tool ran (${loud.toFixed(2)} s of agent audio)`);
  await caller.waitForCount('turn_complete', 1);
  t.equal(caller.frames('turn_complete').length, 1, 'but it is no turn of its own');

  const before = caller.audio.length;
  caller.silence(500);
  caller.say(speech('Press one two.'));
  caller.silence(1500);
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant' && f.text === 'Done.', 15_000);
  const output = sent(sock, 'conversation.item.create').filter((m) => m.item.type === 'function_call_output').at(-1)!;
  t.same(JSON.parse(output.item.output), { result: 'pressed 12' });
  const detector = new DtmfDetector(16000);
  let keys = '';
  for (const a of caller.audio.slice(before)) keys += detector.process(a.pcm);
  t.equal(keys, '12', 'the caller heard the DTMF tones');
  caller.hangUp();
  await caller.closed;
});

t.test('idle: the reminder, then the goodbye as responses we ask for, then idle_timeout', async (t) => {
  const fake = await realtimeFake({ responses: [{ words: ['Are', ' you', ' still', ' there?'], chunks: 6, samplesPerChunk: 2400 }, { words: ['Goodbye.'], chunks: 6, samplesPerChunk: 2400 }] });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', idle_warn_seconds: 1, idle_hangup_seconds: 5 });
  const { caller, sessionId } = await call(h, media, setup);
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 12_000);
  t.equal(ended.frame.reason, 'idle_timeout');
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  const asked = sent(sock, 'response.create').map((m) => m.response.metadata.vas_purpose);
  t.same(asked, ['reminder', 'goodbye']);
  t.match(sent(sock, 'response.create')[0].response.instructions, /Are you still there\?/);
  t.same(caller.frames('transcript').map((f) => f.text), ['Are you still there?', 'Goodbye.']);
  t.equal(caller.frames('turn_complete').length, 2);
  await caller.closed;
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.equal(row.status, 'completed');
  t.equal(row.end_reason, 'idle_timeout');
});

t.test('max duration: the goodbye starts early enough, then max_duration', async (t) => {
  const fake = await realtimeFake({ responses: [{ words: ['Time', ' is', ' up.'], chunks: 10, samplesPerChunk: 2400 }] });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime' });
  const { caller, sessionId } = await call(h, media, setup, { max_duration_seconds: 8 });
  const start = performance.now();
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 12_000);
  t.equal(ended.frame.reason, 'max_duration');
  t.ok(performance.now() - start < 7500, 'ended by the goodbye, before the hard limit');
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  t.same(sent(sock, 'response.create').map((m) => m.response.metadata.vas_purpose), ['goodbye']);
  t.same(caller.frames('transcript').map((f) => f.text), ['Time is up.']);
  await media.idle();
  t.equal((await sessionRow(h, sessionId)).end_reason, 'max_duration');
});

t.test('provider errors: a rate limit event is an error frame and the call goes on', async (t) => {
  const fake = await realtimeFake({
    errors: [realtimeError('rate_limit_exceeded', 'rate_limit_error', 'Rate limit reached for requests')],
    responses: [{ words: ['Hi.'], chunks: 4, samplesPerChunk: 2400 }],
  });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hi.' });
  const { caller } = await call(h, media, setup);
  const err = await caller.waitFor((f) => f.type === 'error');
  t.match(err.frame.message, /rate_limit_exceeded/);
  t.notMatch(String(err.frame.message), /sk-test/);
  await caller.waitForCount('turn_complete', 1);
  t.notOk(caller.closedInfo, 'still connected');
  caller.hangUp();
  await caller.closed;
});

t.test('provider errors: a refused key fails the call (provider_error) and marks the account invalid', async (t) => {
  const refusing = await new WireFake().start();
  fakes.push(refusing);
  refusing.onWebSocket('/v1/realtime', () => {}, () => ({ status: 401, body: { error: INVALID_KEY('sk-test-openai-0000') } }));
  const setup = await setupAgent(h, realtimePipeline(h, refusing.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello.' });
  const { caller, sessionId } = await call(h, media, setup);
  const err = await caller.waitFor((f) => f.type === 'error');
  t.match(err.frame.message, /rejected the API key/);
  t.notMatch(String(err.frame.message), /sk-test/);
  const ended = await caller.waitFor((f) => f.type === 'session_ended');
  t.equal(ended.frame.reason, 'provider_error');
  await caller.closed;
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.equal(row.status, 'failed');
  t.equal(row.end_reason, 'provider_error');
  let account: Record<string, any> = {};
  for (let i = 0; i < 100 && account.status !== 'invalid'; i++) {
    [account] = await h.ctx.sql`select status, status_detail from provider_accounts where project_id = ${setup.projectId}`;
    await new Promise((r) => setTimeout(r, 20));
  }
  t.equal(account.status, 'invalid');
  t.match(account.status_detail, /rejected the API key \(HTTP 401, invalid_api_key\)/);
});

t.test('provider errors: the realtime socket closing mid-call fails the call with provider_error', async (t) => {
  const fake = await realtimeFake({ responses: [{ words: ['Hello.'], chunks: 4, samplesPerChunk: 2400 }] });
  const setup = await setupAgent(h, realtimePipeline(h, fake.baseUrl), { pipeline_mode: 'realtime', greeting: 'Hello.' });
  const { caller, sessionId } = await call(h, media, setup);
  await caller.waitForCount('turn_complete', 1);
  const sock = fake.sockets.find((s) => s.path === '/v1/realtime')!;
  sock.ws.close(1011, 'server_error');
  const ended = await caller.waitFor((f) => f.type === 'session_ended');
  t.equal(ended.frame.reason, 'provider_error');
  t.ok(caller.frames('error').some((f) => /closed the socket/.test(String(f.message))));
  await caller.closed;
  await media.idle();
  t.equal((await sessionRow(h, sessionId)).end_reason, 'provider_error');
  const [account] = await h.ctx.sql`select status from provider_accounts where project_id = ${setup.projectId}`;
  t.equal(account.status, 'verified', 'an outage does not invalidate the account');
});
