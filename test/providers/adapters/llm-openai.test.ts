import t from 'tap';
import { OpenAiLlm } from '../../../src/providers/llm/openai.js';
import type { LlmEvent } from '../../../src/providers/types.js';
import { WireFake, sleep } from '../../fakes/wire/server.js';
import { chatChunk, INVALID_KEY, openAiError, RATE_LIMITED, SERVER_ERROR, textStream, usageChunk, writeChatStream } from '../../fakes/wire/openai.js';
import { collect, failure } from './helpers.js';

const KEY = 'sk-test-0123456789abcdef';
const fake = await new WireFake().start();
t.teardown(() => fake.close());

const llm = (opts: Partial<ConstructorParameters<typeof OpenAiLlm>[1]> = {}) =>
  new OpenAiLlm('gpt-4.1-mini', { apiKey: KEY, baseUrl: fake.baseUrl, ...opts });

t.test('streams text deltas, then end with usage; request is what the API documents', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) => writeChatStream(res, textStream(['Hello', ' there', '.'])));
  const events = await collect(
    llm().stream({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
      ],
      temperature: 0.3,
      maxTokens: 50,
      signal: new AbortController().signal,
    }),
  );
  t.same(events, [
    { type: 'text', text: 'Hello' },
    { type: 'text', text: ' there' },
    { type: 'text', text: '.' },
    { type: 'end', finishReason: 'stop', usage: { inputTokens: 12, outputTokens: 3 } },
  ]);
  const req = fake.requests.at(-1)!;
  t.equal(req.path, '/v1/chat/completions');
  t.equal(req.headers.authorization, `Bearer ${KEY}`);
  t.match(req.headers['content-type'], /application\/json/);
  const body = JSON.parse(req.body.toString());
  t.same(body, {
    model: 'gpt-4.1-mini',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
    ],
    stream: true,
    stream_options: { include_usage: true },
    temperature: 0.3,
    max_tokens: 50,
  });
});

t.test('max_completion_tokens for OpenAI itself, max_tokens for compatible servers', async (t) => {
  const body = (llmOpts: Record<string, unknown>) => {
    const a = llm(llmOpts) as unknown as { isOpenAiHost(): boolean };
    return a.isOpenAiHost();
  };
  t.equal(body({ baseUrl: null }), true);
  t.equal(body({ baseUrl: 'https://eu.api.openai.com/v1' }), true);
  t.equal(body({ baseUrl: 'https://llm.example.org/v1' }), false);
});

t.test('a base_url ending in /v1 is not doubled', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) => writeChatStream(res, textStream(['ok'])));
  await collect(llm({ baseUrl: `${fake.baseUrl}/v1/` }).stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal }));
  t.equal(fake.requests.at(-1)!.path, '/v1/chat/completions');
});

t.test('assembles tool calls across deltas (two parallel calls), sends tools and history', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) =>
    writeChatStream(res, [
      chatChunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, id: 'call_abc', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: '{"ci' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Par' } }] }),
      chatChunk({ tool_calls: [{ index: 1, id: 'call_def', type: 'function', function: { name: 'end_call', arguments: '' } }] }),
      chatChunk({ tool_calls: [{ index: 0, function: { arguments: 'is"}' } }] }),
      chatChunk({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
      chatChunk({}, 'tool_calls'),
      usageChunk(40, 20),
    ]),
  );
  const events = await collect(
    llm().stream({
      messages: [
        { role: 'user', content: 'Weather?' },
        { role: 'assistant', content: null, toolCalls: [{ id: 'call_1', name: 'lookup', arguments: '{"q":1}' }] },
        { role: 'tool', toolCallId: 'call_1', content: '{"result":"ok"}' },
      ],
      tools: [{ name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      signal: new AbortController().signal,
    }),
  );
  t.same(events, [
    { type: 'tool_call', call: { id: 'call_abc', name: 'get_weather', arguments: '{"city":"Paris"}' } },
    { type: 'tool_call', call: { id: 'call_def', name: 'end_call', arguments: '{}' } },
    { type: 'end', finishReason: 'tool_calls', usage: { inputTokens: 40, outputTokens: 20 } },
  ]);
  const body = JSON.parse(fake.requests.at(-1)!.body.toString());
  t.same(body.tools, [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }]);
  t.same(body.messages[1], { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{"q":1}' } }] });
  t.same(body.messages[2], { role: 'tool', tool_call_id: 'call_1', content: '{"result":"ok"}' });
});

t.test('SSE framing split at odd places (CRLF, chunk boundaries inside JSON) still parses', async (t) => {
  fake.on('POST /v1/chat/completions', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const text = [chatChunk({ content: 'Grüße' }), chatChunk({}, 'stop')].map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join('') + ': keep-alive\r\n\r\ndata: [DONE]\r\n\r\n';
    const bytes = Buffer.from(text);
    for (let i = 0; i < bytes.length; i += 7) {
      res.write(bytes.subarray(i, i + 7));
      await sleep(1);
    }
    res.end();
  });
  const events = await collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal }));
  t.same(events, [{ type: 'text', text: 'Grüße' }, { type: 'end', finishReason: 'stop', usage: null }]);
});

t.test('abort mid-stream closes the connection promptly', async (t) => {
  let seen: Promise<void> | undefined;
  fake.on('POST /v1/chat/completions', async (req, res) => {
    seen = req.closed;
    const words = Array.from({ length: 200 }, (_, i) => `w${i} `);
    await writeChatStream(res, textStream(words), { delayMs: 20 });
  });
  const ac = new AbortController();
  const got: string[] = [];
  const err = await failure(
    (async () => {
      for await (const e of llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: ac.signal })) {
        if (e.type === 'text') got.push(e.text);
        if (got.length === 3) ac.abort();
      }
    })(),
  );
  t.equal(err.kind, 'aborted');
  const started = Date.now();
  await seen;
  t.ok(Date.now() - started < 500, 'fake saw the socket close');
  t.equal(got.length, 3);
});

t.test('breaking out of the loop also closes the connection', async (t) => {
  let seen: Promise<void> | undefined;
  fake.on('POST /v1/chat/completions', async (req, res) => {
    seen = req.closed;
    await writeChatStream(res, textStream(Array.from({ length: 200 }, () => 'x ')), { delayMs: 20 });
  });
  for await (const e of llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })) {
    if (e.type === 'text') break;
  }
  await seen;
  t.pass('closed');
});

t.test('401 is auth and the message never carries the key', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) => openAiError(res, 401, INVALID_KEY(KEY)));
  const err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'auth');
  t.equal(err.status, 401);
  t.equal(err.code, 'invalid_api_key');
  t.ok(err.invalidatesAccount);
  t.notOk(err.message.includes(KEY));
  t.notOk(JSON.stringify(err).includes(KEY));
});

t.test('429 is rate_limit with retry-after, and is not retried', async (t) => {
  const before = fake.requests.length;
  fake.on('POST /v1/chat/completions', (_req, res) => openAiError(res, 429, RATE_LIMITED, { 'retry-after': '2' }));
  const err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'rate_limit');
  t.equal(err.retryAfterMs, 2000);
  t.ok(err.recoverable);
  t.equal(fake.requests.length - before, 1);
});

t.test('500 is unavailable (recoverable)', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) => openAiError(res, 500, SERVER_ERROR));
  const err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'unavailable');
  t.equal(err.code, 'server_error');
});

t.test('400 is bad_request', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) =>
    openAiError(res, 400, { message: "Invalid value for 'model'", type: 'invalid_request_error', param: 'model', code: 'model_not_found' }),
  );
  const err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'bad_request');
  t.equal(err.code, 'model_not_found');
});

t.test('a malformed frame is a protocol error; an error frame mid-stream is unavailable; a cut stream is unavailable', async (t) => {
  fake.on('POST /v1/chat/completions', (_req, res) => writeChatStream(res, [chatChunk({ content: 'a' }), 'data: {not json\n\n']));
  let err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'protocol');

  fake.on('POST /v1/chat/completions', (_req, res) => writeChatStream(res, [chatChunk({ content: 'a' }), { error: SERVER_ERROR }], { done: false }));
  err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'unavailable');

  fake.on('POST /v1/chat/completions', (_req, res) => writeChatStream(res, [chatChunk({ content: 'a' })], { done: false }));
  err = await failure(collect(llm().stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'unavailable');
});

t.test('first-byte and idle timeouts', async (t) => {
  fake.on('POST /v1/chat/completions', async (_req, res) => {
    await sleep(400);
    await writeChatStream(res, textStream(['late']));
  });
  let started = Date.now();
  let err = await failure(collect(llm({ timeouts: { connectMs: 100, firstByteMs: 100 } }).stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'timeout');
  t.equal(err.code, 'first_byte');
  t.ok(Date.now() - started < 350);

  fake.on('POST /v1/chat/completions', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(`data: ${JSON.stringify(chatChunk({ content: 'a' }))}\n\n`);
    await sleep(500);
    res.end();
  });
  started = Date.now();
  const got: LlmEvent[] = [];
  err = await failure(
    (async () => {
      for await (const e of llm({ timeouts: { idleMs: 100 } }).stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })) got.push(e);
    })(),
  );
  t.equal(err.kind, 'timeout');
  t.equal(err.code, 'idle');
  t.same(got, [{ type: 'text', text: 'a' }], 'partial output was delivered');
  t.equal(fake.requests.at(-1)!.path, '/v1/chat/completions');
  const before = fake.requests.length;
  await sleep(150);
  t.equal(fake.requests.length, before, 'and not retried');
});

t.test('connect failures are retried before any output, then reported as unavailable', async (t) => {
  const dead = new WireFake();
  await dead.start();
  const url = dead.baseUrl;
  await dead.close();
  const started = Date.now();
  const err = await failure(collect(llm({ baseUrl: url, connectRetries: 2 }).stream({ messages: [{ role: 'user', content: 'x' }], signal: new AbortController().signal })));
  t.equal(err.kind, 'unavailable');
  t.equal(err.code, 'ECONNREFUSED');
  t.ok(Date.now() - started >= 300, 'backed off 100 + 200 ms');
});
