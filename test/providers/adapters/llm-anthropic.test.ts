import t from 'tap';
import { AnthropicLlm } from '../../../src/providers/llm/anthropic.js';
import type { LlmEvent } from '../../../src/providers/types.js';
import { WireFake } from '../../fakes/wire/server.js';
import {
  anthropicError,
  blockStop,
  jsonDelta,
  messageDelta,
  messageStart,
  messageStop,
  ping,
  textDelta,
  textMessage,
  textStart,
  toolStart,
  writeMessageStream,
} from '../../fakes/wire/anthropic.js';
import { collect, failure, signal } from './helpers.js';

const KEY = 'sk-ant-test-0123456789';
const fake = await new WireFake().start();
t.teardown(() => fake.close());
const llm = (opts: Record<string, unknown> = {}) => new AnthropicLlm('claude-sonnet-4-5', { apiKey: KEY, baseUrl: fake.baseUrl, ...opts });

t.test('streams text; headers, system mapping and body as documented', async (t) => {
  fake.on('POST /v1/messages', (_req, res) => writeMessageStream(res, textMessage(['Hello', ' world.'])));
  const events = await collect(
    llm().stream({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Hi' },
        { role: 'user', content: 'Anyone?' },
      ],
      temperature: 0.2,
      signal: signal(),
    }),
  );
  t.same(events, [
    { type: 'text', text: 'Hello' },
    { type: 'text', text: ' world.' },
    { type: 'end', finishReason: 'stop', usage: { inputTokens: 25, outputTokens: 2 } },
  ]);
  const req = fake.requests.at(-1)!;
  t.equal(req.path, '/v1/messages');
  t.equal(req.headers['x-api-key'], KEY);
  t.equal(req.headers['anthropic-version'], '2023-06-01');
  t.notOk(req.headers.authorization);
  t.same(JSON.parse(req.body.toString()), {
    model: 'claude-sonnet-4-5',
    max_tokens: 1024,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'Anyone?' }] }],
    stream: true,
    system: 'You are terse.',
    temperature: 0.2,
  });
});

t.test('tool_use blocks become complete tool calls; tool history maps to tool_use/tool_result', async (t) => {
  fake.on('POST /v1/messages', (_req, res) =>
    writeMessageStream(res, [
      messageStart(50),
      textStart(0),
      textDelta(0, 'Let me check.'),
      blockStop(0),
      toolStart(1, 'toolu_01A', 'get_weather'),
      jsonDelta(1, ''),
      jsonDelta(1, '{"city": "Pa'),
      ping,
      jsonDelta(1, 'ris"}'),
      blockStop(1),
      toolStart(2, 'toolu_01B', 'end_call'),
      blockStop(2),
      messageDelta('tool_use', 30),
      messageStop,
    ]),
  );
  const events = await collect(
    llm().stream({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: 'Checking.', toolCalls: [{ id: 'toolu_00', name: 'lookup', arguments: '{"q":1}' }] },
        { role: 'tool', toolCallId: 'toolu_00', content: 'sunny' },
      ],
      tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      maxTokens: 200,
      signal: signal(),
    }),
  );
  t.same(events, [
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_call', call: { id: 'toolu_01A', name: 'get_weather', arguments: '{"city": "Paris"}' } },
    { type: 'tool_call', call: { id: 'toolu_01B', name: 'end_call', arguments: '{}' } },
    { type: 'end', finishReason: 'tool_calls', usage: { inputTokens: 50, outputTokens: 30 } },
  ]);
  const body = JSON.parse(fake.requests.at(-1)!.body.toString());
  t.equal(body.max_tokens, 200);
  t.same(body.tools, [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }]);
  t.same(body.messages, [
    { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_00', name: 'lookup', input: { q: 1 } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_00', content: 'sunny' }] },
  ]);
});

t.test('max_tokens stop reason is length', async (t) => {
  fake.on('POST /v1/messages', (_req, res) =>
    writeMessageStream(res, [messageStart(), textStart(0), textDelta(0, 'a'), blockStop(0), messageDelta('max_tokens', 1), messageStop]),
  );
  const events = await collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() }));
  t.same(events.at(-1), { type: 'end', finishReason: 'length', usage: { inputTokens: 25, outputTokens: 1 } });
});

t.test('an error event mid-stream (overloaded) is unavailable', async (t) => {
  fake.on('POST /v1/messages', (_req, res) =>
    writeMessageStream(res, [
      messageStart(),
      textStart(0),
      textDelta(0, 'a'),
      `event: error\ndata: ${JSON.stringify({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })}\n\n`,
    ]),
  );
  const got: LlmEvent[] = [];
  const err = await failure((async () => {
    for await (const e of llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })) got.push(e);
  })());
  t.equal(err.kind, 'unavailable');
  t.equal(err.code, 'overloaded_error');
  t.same(got, [{ type: 'text', text: 'a' }]);
});

t.test('HTTP errors: 401 auth, 429 with retry-after, 529 overloaded, 400', async (t) => {
  fake.on('POST /v1/messages', (_req, res) => anthropicError(res, 401, 'authentication_error', `invalid x-api-key ${KEY}`));
  let err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'auth');
  t.equal(err.code, 'authentication_error');
  t.notOk(err.message.includes(KEY));

  fake.on('POST /v1/messages', (_req, res) => anthropicError(res, 429, 'rate_limit_error', 'Number of request tokens has exceeded your rate limit', { 'retry-after': '7' }));
  err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'rate_limit');
  t.equal(err.retryAfterMs, 7000);

  fake.on('POST /v1/messages', (_req, res) => anthropicError(res, 529, 'overloaded_error', 'Overloaded'));
  err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'unavailable');

  fake.on('POST /v1/messages', (_req, res) => anthropicError(res, 400, 'invalid_request_error', 'messages: roles must alternate'));
  err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'bad_request');
});

t.test('malformed data and a stream cut before message_stop', async (t) => {
  fake.on('POST /v1/messages', (_req, res) => writeMessageStream(res, [messageStart(), 'event: content_block_start\ndata: {oops\n\n']));
  let err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'protocol');
  fake.on('POST /v1/messages', (_req, res) => writeMessageStream(res, [messageStart(), textStart(0), textDelta(0, 'a')]));
  err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'unavailable');
});

t.test('abort mid-stream closes the connection', async (t) => {
  let seen: Promise<void> | undefined;
  fake.on('POST /v1/messages', async (req, res) => {
    seen = req.closed;
    await writeMessageStream(res, textMessage(Array.from({ length: 200 }, (_, i) => `w${i} `)), { delayMs: 15 });
  });
  const ac = new AbortController();
  let n = 0;
  const err = await failure((async () => {
    for await (const e of llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: ac.signal })) {
      if (e.type === 'text' && ++n === 2) ac.abort();
    }
  })());
  t.equal(err.kind, 'aborted');
  await seen;
  t.equal(n, 2);
});

t.test('idle timeout', async (t) => {
  fake.on('POST /v1/messages', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`event: message_start\ndata: ${JSON.stringify(messageStart())}\n\n`);
    await new Promise((r) => setTimeout(r, 400));
    res.end();
  });
  const err = await failure(collect(llm({ timeouts: { idleMs: 100 } }).stream({ messages: [{ role: 'user', content: 'x' }], signal: signal() })));
  t.equal(err.kind, 'timeout');
});

t.test('a conversation that opens with the greeting gets a user turn first; blank text is dropped', async (t) => {
  fake.on('POST /v1/messages', (_req, res) => writeMessageStream(res, textMessage(['ok'])));
  await collect(
    llm().stream({
      messages: [
        { role: 'system', content: 'S' },
        { role: 'assistant', content: 'Hello, how can I help?' },
        { role: 'user', content: '  ' },
        { role: 'user', content: 'Book a table' },
      ],
      signal: signal(),
    }),
  );
  const body = JSON.parse(fake.requests.at(-1)!.body.toString());
  t.same(body.messages, [
    { role: 'user', content: [{ type: 'text', text: '(The call has connected.)' }] },
    { role: 'assistant', content: [{ type: 'text', text: 'Hello, how can I help?' }] },
    { role: 'user', content: [{ type: 'text', text: 'Book a table' }] },
  ]);
});
