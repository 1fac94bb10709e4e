import t from 'tap';
import { OpenAiRealtime } from '../../../src/providers/realtime/openai.js';
import type { RealtimeEvent } from '../../../src/providers/types.js';
import { WireFake, sleep } from '../../fakes/wire/server.js';
import { INVALID_KEY } from '../../fakes/wire/openai.js';
import { realtimeError, realtimeServer } from '../../fakes/wire/openai-realtime.js';
import { failure, ramp, signal } from './helpers.js';

const KEY = 'sk-rt-test-1234567890ab';
const fake = await new WireFake().start();
t.teardown(() => fake.close());
const rt = (opts: Record<string, unknown> = {}) => new OpenAiRealtime('gpt-realtime', { apiKey: KEY, baseUrl: fake.baseUrl, ...opts });

async function until(it: AsyncIterator<RealtimeEvent>, type: RealtimeEvent['type'], seen: RealtimeEvent[] = []): Promise<RealtimeEvent[]> {
  for (;;) {
    const r = await it.next();
    if (r.done) throw new Error(`ended before ${type}`);
    seen.push(r.value);
    if (r.value.type === type) return seen;
  }
}

t.test('connect, GA session.update, audio in, speech events, response audio and transcript, response.done', async (t) => {
  fake.onWebSocket('/v1/realtime', realtimeServer({ chunks: 3, words: ['Hi', ' there', '.'] }));
  const s = await rt().connect({
    session: {
      instructions: 'Be kind.',
      voice: 'marin',
      turnDetection: { type: 'server_vad', silenceDurationMs: 500 },
      tools: [{ name: 'end_call', description: 'Hang up', parameters: { type: 'object', properties: {} } }],
      inputTranscriptionModel: 'gpt-4o-mini-transcribe',
    },
    signal: signal(),
  });
  t.equal(s.sampleRateHz, 24000);
  const it = s[Symbol.asyncIterator]();
  await until(it, 'session_updated');
  const sock = fake.sockets.at(-1)!;
  t.equal(sock.path, '/v1/realtime');
  t.equal(sock.query.get('model'), 'gpt-realtime');
  t.equal(sock.headers.authorization, `Bearer ${KEY}`);
  t.notOk(sock.headers['openai-beta'], 'GA: no beta header');
  const update = sock.messages[0] as Record<string, any>;
  t.equal(update.type, 'session.update');
  t.same(update.session, {
    type: 'realtime',
    model: 'gpt-realtime',
    output_modalities: ['audio'],
    audio: {
      input: {
        format: { type: 'audio/pcm', rate: 24000 },
        turn_detection: { type: 'server_vad', silence_duration_ms: 500, create_response: true, interrupt_response: true },
        transcription: { model: 'gpt-4o-mini-transcribe' },
      },
      output: { format: { type: 'audio/pcm', rate: 24000 }, voice: 'marin' },
    },
    instructions: 'Be kind.',
    tools: [{ type: 'function', name: 'end_call', description: 'Hang up', parameters: { type: 'object', properties: {} } }],
    tool_choice: 'auto',
  });

  const audio = ramp(480);
  s.appendAudio(audio);
  const [started] = (await until(it, 'speech_started')).slice(-1);
  t.match(started, { type: 'speech_started', audioStartMs: 120 });
  const append = sock.messages.find((m) => (m as { type: string }).type === 'input_audio_buffer.append') as { audio: string };
  t.same(Buffer.from(append.audio, 'base64'), Buffer.from(audio.buffer));

  s.commitAudio();
  const seen = await until(it, 'input_transcript');
  t.match(seen.at(-1), { type: 'input_transcript', text: 'Hello agent.' });
  t.ok(seen.some((e) => e.type === 'speech_stopped'));

  s.createResponse();
  const events = await until(it, 'response_done');
  const audioEvents = events.filter((e) => e.type === 'audio') as Extract<RealtimeEvent, { type: 'audio' }>[];
  t.equal(audioEvents.length, 3);
  t.same(Array.from(audioEvents[1].pcm.slice(0, 3)), [2, 2, 2]);
  t.equal(audioEvents[0].contentIndex, 0);
  t.same(events.filter((e) => e.type === 'transcript_delta').map((e) => (e as { text: string }).text), ['Hi', ' there', '.']);
  t.match(events.find((e) => e.type === 'transcript_done'), { text: 'Hi there.' });
  t.match(events.at(-1), { type: 'response_done', status: 'completed', usage: { inputTokens: 30, outputTokens: 20 } });
  s.close();
  const closed = await sock.closed;
  t.equal(closed.code, 1000);
});

t.test('barge-in: cancel + truncate with the played duration', async (t) => {
  fake.onWebSocket('/v1/realtime', realtimeServer({ chunks: 50, delayMs: 10 }));
  const s = await rt().connect({ signal: signal() });
  const it = s[Symbol.asyncIterator]();
  s.createResponse({ instructions: 'Say hello' });
  const first = (await until(it, 'audio')).at(-1) as Extract<RealtimeEvent, { type: 'audio' }>;
  s.cancel();
  s.truncate(first.itemId, 0, 237.6);
  const done = (await until(it, 'response_done')).at(-1);
  t.match(done, { status: 'cancelled' });
  const sock = fake.sockets.at(-1)!;
  const types = sock.messages.map((m) => (m as { type: string }).type);
  t.same(types, ['response.create', 'response.cancel', 'conversation.item.truncate']);
  t.match(sock.messages[0], { response: { instructions: 'Say hello' } });
  t.match(sock.messages[2], { item_id: first.itemId, content_index: 0, audio_end_ms: 238 });
  s.close();
});

t.test('tool calls arrive whole; the result goes back as function_call_output', async (t) => {
  fake.onWebSocket('/v1/realtime', realtimeServer({ functionCall: { name: 'end_call', arguments: '{"reason":"done"}' } }));
  const s = await rt().connect({ signal: signal() });
  const it = s[Symbol.asyncIterator]();
  s.createResponse();
  const events = await until(it, 'response_done');
  const call = events.find((e) => e.type === 'tool_call') as Extract<RealtimeEvent, { type: 'tool_call' }>;
  t.equal(call.call.name, 'end_call');
  t.equal(call.call.arguments, '{"reason":"done"}');
  s.sendToolResult(call.call.id, '{"result":"ok"}');
  await sleep(20);
  t.match(fake.sockets.at(-1)!.messages.at(-1), { type: 'conversation.item.create', item: { type: 'function_call_output', call_id: call.call.id, output: '{"result":"ok"}' } });
  s.close();
});

t.test('error events: non-fatal ones are events; benign cancel races are dropped', async (t) => {
  fake.onWebSocket('/v1/realtime', (sock) => {
    realtimeServer()(sock);
    sock.ws.send(JSON.stringify(realtimeError('response_cancel_not_active', 'invalid_request_error', 'Cancellation failed: no active response found')));
    sock.ws.send(JSON.stringify(realtimeError('invalid_value', 'invalid_request_error', 'audio_end_ms is longer than the audio')));
  });
  const s = await rt().connect({ signal: signal() });
  const it = s[Symbol.asyncIterator]();
  const ev = (await until(it, 'error')).at(-1) as Extract<RealtimeEvent, { type: 'error' }>;
  t.equal(ev.error.code, 'invalid_value');
  t.equal(ev.error.kind, 'bad_request');
  s.close();
});

t.test('handshake 401 → auth without the key; an unexpected close → unavailable; malformed → protocol', async (t) => {
  fake.onWebSocket('/v1/realtime', () => {}, () => ({ status: 401, body: { error: INVALID_KEY(KEY) } }));
  let err = await failure(rt().connect({ signal: signal() }));
  t.equal(err.kind, 'auth');
  t.equal(err.code, 'invalid_api_key');
  t.notOk(err.message.includes(KEY));

  fake.onWebSocket('/v1/realtime', (sock) => {
    realtimeServer()(sock);
    setTimeout(() => sock.ws.close(1011, 'server_error'), 30);
  });
  let s = await rt().connect({ signal: signal() });
  err = await failure(async () => {
    for await (const _ of s) void _;
  });
  t.equal(err.kind, 'unavailable');

  fake.onWebSocket('/v1/realtime', (sock) => {
    realtimeServer()(sock);
    sock.ws.send('{"no_type": true}');
  });
  s = await rt().connect({ signal: signal() });
  err = await failure(async () => {
    for await (const _ of s) void _;
  });
  t.equal(err.kind, 'protocol');
});

t.test('no session.created in time → timeout; no events during a response → idle timeout; abort', async (t) => {
  fake.onWebSocket('/v1/realtime', () => {});
  let err = await failure(rt({ timeouts: { firstByteMs: 100 } }).connect({ signal: signal() }));
  t.equal(err.kind, 'timeout');

  fake.onWebSocket('/v1/realtime', (sock) => sock.ws.send(JSON.stringify({ type: 'session.created', event_id: 'e1', session: {} })));
  let s = await rt({ timeouts: { idleMs: 100 } }).connect({ signal: signal() });
  s.createResponse();
  err = await failure(async () => {
    for await (const _ of s) void _;
  });
  t.equal(err.kind, 'timeout');
  t.equal(err.code, 'idle');

  fake.onWebSocket('/v1/realtime', realtimeServer({ chunks: 100, delayMs: 10 }));
  const ac = new AbortController();
  s = await rt().connect({ signal: ac.signal });
  s.createResponse();
  let n = 0;
  err = await failure(async () => {
    for await (const e of s) if (e.type === 'audio' && ++n === 2) ac.abort();
  });
  t.equal(err.kind, 'aborted');
  await fake.sockets.at(-1)!.closed;
});

t.test('a 503 on the upgrade is retried (nothing was produced); a 500 is not', async (t) => {
  let refusals = 1;
  fake.onWebSocket('/v1/realtime', realtimeServer(), () => (refusals-- > 0 ? { status: 503, body: { error: { message: 'busy', type: 'server_error', param: null, code: null } } } : null));
  const before = fake.sockets.length;
  const s = await rt().connect({ signal: signal() });
  t.equal(fake.sockets.length, before + 1, 'second try connected');
  s.close();

  let attempts = 0;
  fake.onWebSocket('/v1/realtime', realtimeServer(), () => {
    attempts++;
    return { status: 500, body: { error: { message: 'boom', type: 'server_error', param: null, code: null } } };
  });
  const err = await failure(rt().connect({ signal: signal() }));
  t.equal(err.kind, 'unavailable');
  t.equal(attempts, 1);
});

t.test('response.create carries metadata; response.created reports it; a refused create names our event_id', async (t) => {
  fake.onWebSocket('/v1/realtime', realtimeServer({ chunks: 30, delayMs: 10 }));
  const s = await rt().connect({ session: { inputTranscriptionModel: 'gpt-4o-mini-transcribe', inputTranscriptionLanguage: 'de-DE' }, signal: signal() });
  const it = s[Symbol.asyncIterator]();
  const first = s.createResponse({ instructions: 'Say hi', metadata: { vas_purpose: 'greeting', vas_request: '1' } });
  const created = (await until(it, 'response_created')).at(-1) as Extract<RealtimeEvent, { type: 'response_created' }>;
  t.same(created.metadata, { vas_purpose: 'greeting', vas_request: '1' });
  t.match(created.responseId, /^resp_/);
  // A second response while the first runs: the documented conflict, about our event.
  const second = s.createResponse({ metadata: { vas_purpose: 'answer' } });
  t.not(second, first);
  const err = (await until(it, 'error')).at(-1) as Extract<RealtimeEvent, { type: 'error' }>;
  t.equal(err.error.code, 'conversation_already_has_active_response');
  t.equal(err.clientEventId, second);
  const done = (await until(it, 'response_done')).at(-1) as Extract<RealtimeEvent, { type: 'response_done' }>;
  t.same(done.metadata, { vas_purpose: 'greeting', vas_request: '1' });
  s.sendUserText('[The caller pressed the keys: 12]');
  await sleep(20);
  const sock = fake.sockets.at(-1)!;
  const msgs = sock.messages as Record<string, any>[];
  t.match(msgs.find((m) => m.type === 'session.update'), { session: { audio: { input: { transcription: { model: 'gpt-4o-mini-transcribe', language: 'de' } } } } });
  t.match(msgs.find((m) => m.type === 'response.create'), { event_id: first, response: { instructions: 'Say hi', metadata: { vas_purpose: 'greeting', vas_request: '1' } } });
  t.match(msgs.at(-1), { type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: '[The caller pressed the keys: 12]' }] } });
  s.close();
});

t.test('a cancelled response reports status_details.reason', async (t) => {
  fake.onWebSocket('/v1/realtime', realtimeServer({ chunks: 50, delayMs: 10 }));
  const s = await rt().connect({ signal: signal() });
  const it = s[Symbol.asyncIterator]();
  s.createResponse();
  await until(it, 'audio');
  s.cancel();
  const done = (await until(it, 'response_done')).at(-1) as Extract<RealtimeEvent, { type: 'response_done' }>;
  t.equal(done.status, 'cancelled');
  t.equal(done.reason, 'client_cancelled');
  s.close();
});
