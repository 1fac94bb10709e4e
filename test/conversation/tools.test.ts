import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { DtmfDetector } from '../../src/audio/native.js';
import { chatChunk, openAiError, writeChatStream } from '../fakes/wire/openai.js';
import { call, isAssistant, isUser, openAiPipeline, sessionRow, setupAgent, speech, startCallTests } from './fixtures.js';

// Tools through the real socket (contract §4): a customer tool answered by the signed
// tool.call webhook, the built-in end_call and send_dtmf; and provider failures mid-call.

const { h, fake, media } = await startCallTests(t);

type Chunks = unknown[];
const text = (s: string): Chunks => [chatChunk({ role: 'assistant', content: '' }), chatChunk({ content: s }), chatChunk({}, 'stop')];
const toolCall = (name: string, args: string, content = ''): Chunks => [
  chatChunk({ role: 'assistant', content: content || null }),
  chatChunk({ tool_calls: [{ index: 0, id: `call_${name}`, type: 'function', function: { name, arguments: '' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }),
  chatChunk({}, 'tool_calls'),
];

/** The chat fake answers each request with the next script entry. */
function scriptChat(answers: Chunks[]): { bodies: Record<string, unknown>[] } {
  const bodies: Record<string, unknown>[] = [];
  fake.on('POST /v1/chat/completions', (req, res) => {
    bodies.push(JSON.parse(req.body.toString()));
    return writeChatStream(res, answers.shift() ?? text('Okay.'));
  });
  return { bodies };
}

async function askSomething(caller: Awaited<ReturnType<typeof call>>['caller'], words = 'What is the weather?') {
  caller.silence(300);
  caller.say(speech(words));
  return caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', 15_000);
}

t.test('a customer tool: signed tool.call to tool_webhook_url, its {result} goes back to the model', async (t) => {
  const calls: { headers: Record<string, string>; body: string }[] = [];
  const hook = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      calls.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { forecast: 'sunny', celsius: 21 } }));
    });
  });
  await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  t.teardown(() => new Promise<void>((r) => hook.close(() => r())));
  const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/tools`;
  const chat = scriptChat([toolCall('get_weather', '{"city":"Paris"}'), text('It is sunny in Paris.')]);
  fake.script.transcripts = ['what is the weather'];
  const tools = [{ type: 'function', name: 'get_weather', description: 'Weather by city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { tools, tool_webhook_url: url });
  const { caller, sessionId } = await call(h, media, setup);
  await askSomething(caller);
  const answer = await caller.waitFor(isAssistant, 15_000);
  t.equal(answer.frame.text, 'It is sunny in Paris.');

  t.equal(calls.length, 1);
  const verified = new Webhook(setup.webhookSecret).verify(calls[0].body, calls[0].headers) as { type: string; data: Record<string, unknown> };
  t.equal(verified.type, 'tool.call');
  t.same(verified.data, { session_id: sessionId, tool: 'get_weather', arguments: { city: 'Paris' } });

  t.equal(chat.bodies.length, 2);
  const msgs = chat.bodies[1].messages as { role: string; content: string; tool_call_id?: string; tool_calls?: unknown[] }[];
  const toolMsg = msgs.find((m) => m.role === 'tool');
  t.equal(toolMsg?.tool_call_id, 'call_get_weather');
  t.same(JSON.parse(toolMsg!.content), { result: { forecast: 'sunny', celsius: 21 } });
  t.ok(msgs.some((m) => m.role === 'assistant' && Array.isArray(m.tool_calls)), 'the tool call is in the history');
  caller.hangUp();
  await caller.closed;
});

t.test('a tool webhook that fails tells the model the tool failed', async (t) => {
  const chat = scriptChat([toolCall('lookup', '{}'), text('Sorry, I could not look that up.')]);
  fake.script.transcripts = ['look it up'];
  const tools = [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { tools, tool_webhook_url: 'http://127.0.0.1:9/unreachable' });
  const { caller } = await call(h, media, setup);
  await askSomething(caller, 'Look it up.');
  await caller.waitFor(isAssistant, 15_000);
  const toolMsg = (chat.bodies[1].messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
  t.match(JSON.parse(toolMsg!.content).error, /the tool failed/);
  caller.hangUp();
  await caller.closed;
});

t.test('end_call: the agent says goodbye, then the call ends with agent_hangup', async (t) => {
  scriptChat([toolCall('end_call', '{}', 'Goodbye, have a nice day.')]);
  fake.script.transcripts = ['that is all'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller, sessionId } = await call(h, media, setup);
  await askSomething(caller, 'That is all.');
  const bye = await caller.waitFor(isAssistant, 15_000);
  t.equal(bye.frame.text, 'Goodbye, have a nice day.');
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 10_000);
  t.equal(ended.frame.reason, 'agent_hangup');
  t.ok(ended.at >= bye.at, 'after the goodbye played');
  await caller.closed;
  await media.idle();
  t.same((({ status, end_reason }) => ({ status, end_reason }))(await sessionRow(h, sessionId)), { status: 'completed', end_reason: 'agent_hangup' });
});

t.test('send_dtmf plays the keys as DTMF tones when can_send_dtmf', async (t) => {
  scriptChat([toolCall('send_dtmf', '{"digits":"42#"}'), text('I pressed the keys.')]);
  fake.script.transcripts = ['press four two hash'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl), { can_send_dtmf: true });
  const { caller } = await call(h, media, setup, { sample_rate_out: 16000 });
  const user = await askSomething(caller, 'Press four two hash.');
  await caller.waitFor(isAssistant, 15_000);
  const detector = new DtmfDetector(16000);
  let digits = '';
  for (const a of caller.audio.filter((x) => x.at >= user.at)) digits += detector.process(a.pcm);
  t.equal(digits, '42#');
  caller.hangUp();
  await caller.closed;
});

t.test('send_dtmf is not offered without can_send_dtmf', async (t) => {
  const chat = scriptChat([text('Hello.')]);
  fake.script.transcripts = ['hi'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller } = await call(h, media, setup);
  await askSomething(caller, 'Hi.');
  await caller.waitFor(isAssistant, 15_000);
  const names = (chat.bodies[0].tools as { function: { name: string } }[]).map((x) => x.function.name);
  t.same(names, ['end_call']);
  caller.hangUp();
  await caller.closed;
});

t.test('a rate-limited model is a recoverable error frame; the call goes on', async (t) => {
  let n = 0;
  fake.on('POST /v1/chat/completions', (_req, res) => {
    if (n++ === 0) return openAiError(res, 429, { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' });
    return writeChatStream(res, text('Now I can answer.'));
  });
  fake.script.transcripts = ['first try', 'second try'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller, sessionId } = await call(h, media, setup);
  await askSomething(caller, 'First try.');
  const err = await caller.waitFor((f) => f.type === 'error', 15_000);
  t.match(String(err.frame.message), /rate limit/);
  caller.silence(500);
  caller.say(speech('Second try.'));
  const answer = await caller.waitFor(isAssistant, 15_000);
  t.equal(answer.frame.text, 'Now I can answer.');
  caller.hangUp();
  await caller.closed;
  await media.idle();
  t.equal((await sessionRow(h, sessionId)).status, 'completed');
});

t.test('a rejected key mid-call ends the call as failed/provider_error', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) => openAiError(res, 401, { message: 'Incorrect API key provided', type: 'invalid_request_error', param: null, code: 'invalid_api_key' }));
  fake.script.transcripts = ['hello'];
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, fake.baseUrl));
  const { caller, sessionId } = await call(h, media, setup);
  await askSomething(caller, 'Hello.');
  const ended = await caller.waitFor((f) => f.type === 'session_ended', 15_000);
  t.equal(ended.frame.reason, 'provider_error');
  t.ok(caller.frames('error').length >= 1, 'an error frame said why');
  await caller.closed;
  await media.idle();
  t.same((({ status, end_reason }) => ({ status, end_reason }))(await sessionRow(h, sessionId)), { status: 'failed', end_reason: 'provider_error' });
  // The account is marked in the background (the call does not wait for it).
  const status = async () => (await h.ctx.sql`select a.status from provider_accounts a join agents g on g.pipeline_config->'llm'->>'account_id' = a.id::text where g.id = ${setup.agentId}`)[0].status;
  for (let i = 0; i < 100 && (await status()) !== 'invalid'; i++) await new Promise((r) => setTimeout(r, 20));
  t.equal(await status(), 'invalid', 'the refused account is marked invalid');
});
