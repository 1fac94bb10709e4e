import t from 'tap';
import { DeepgramStt } from '../../../src/providers/stt/deepgram.js';
import { WireFake, sleep, type ReceivedSocket } from '../../fakes/wire/server.js';
import { deepgramErrorBody, metadata, results, utteranceEnd } from '../../fakes/wire/deepgram.js';
import { collect, failure, ramp, signal } from './helpers.js';

const KEY = 'dg-live-test-key-98765';
const fake = await new WireFake().start();
t.teardown(() => fake.close());
const stt = (opts: Record<string, unknown> = {}) => new DeepgramStt({ apiKey: KEY, baseUrl: fake.baseUrl, model: 'nova-3', ...opts });

/** Scripted Deepgram: answers audio with interim/final results; CloseStream → Metadata and close; Finalize → from_finalize final. */
function liveServer(sock: ReceivedSocket) {
  let bytes = 0;
  let step = 0;
  sock.ws.on('message', (data, isBinary) => {
    if (isBinary) {
      bytes += (data as Buffer).length;
      step++;
      if (step === 1) sock.ws.send(JSON.stringify(results('hello', { isFinal: false })));
      if (step === 2) sock.ws.send(JSON.stringify(results('hello world', { isFinal: true, speechFinal: true })));
      if (step === 3) sock.ws.send(JSON.stringify(utteranceEnd(1.2)));
      if (step === 4) sock.ws.send(JSON.stringify(results('', { isFinal: false })));
      return;
    }
    const msg = JSON.parse(data.toString());
    if (msg.type === 'Finalize') sock.ws.send(JSON.stringify(results('and more', { isFinal: true, fromFinalize: true })));
    if (msg.type === 'CloseStream') {
      sock.ws.send(JSON.stringify(metadata(bytes / 32000)));
      sock.ws.close(1000);
    }
  });
}

t.test('query, auth, binary audio; interim, final with speech_final, utterance end; Finalize; CloseStream', async (t) => {
  fake.onWebSocket('/v1/listen', liveServer);
  const s = await stt().open({ sampleRateHz: 16000, language: 'en-US', endpointingMs: 300, signal: signal() });
  const events = collect(s);
  const chunk = ramp(320);
  for (let i = 0; i < 4; i++) {
    s.write(chunk);
    await sleep(5);
  }
  s.commit();
  await sleep(20);
  await s.finish();
  t.same(await events, [
    { type: 'interim', text: 'hello' },
    { type: 'final', text: 'hello world', speechFinal: true },
    { type: 'utterance_end' },
    { type: 'final', text: 'and more', speechFinal: false },
  ]);
  const sock = fake.sockets.at(-1)!;
  t.equal(sock.path, '/v1/listen');
  t.same(Object.fromEntries(sock.query), {
    model: 'nova-3',
    encoding: 'linear16',
    sample_rate: '16000',
    channels: '1',
    interim_results: 'true',
    endpointing: '300',
    utterance_end_ms: '1000',
    punctuate: 'true',
    language: 'en-US',
  });
  t.equal(sock.headers.authorization, `Token ${KEY}`);
  t.equal(sock.binary.length, 4);
  t.same(Buffer.concat(sock.binary), Buffer.concat(Array.from({ length: 4 }, () => Buffer.from(chunk.buffer))));
  t.same(sock.messages, [{ type: 'Finalize' }, { type: 'CloseStream' }]);
});

t.test('KeepAlive goes up as a text frame while no audio is sent', async (t) => {
  fake.onWebSocket('/v1/listen', liveServer);
  const s = await stt({ keepAliveMs: 60 }).open({ sampleRateHz: 8000, signal: signal() });
  await sleep(200);
  const sock = fake.sockets.at(-1)!;
  t.ok(sock.messages.filter((m) => (m as { type: string }).type === 'KeepAlive').length >= 2, 'keepalives sent');
  t.equal(sock.binary.length, 0);
  s.close();
  await sock.closed;
});

t.test('abort closes the socket and fails the iterator with aborted', async (t) => {
  fake.onWebSocket('/v1/listen', () => {});
  const ac = new AbortController();
  const s = await stt().open({ sampleRateHz: 16000, signal: ac.signal });
  setTimeout(() => ac.abort(), 20);
  const err = await failure(collect(s));
  t.equal(err.kind, 'aborted');
  await fake.sockets.at(-1)!.closed;
});

t.test('handshake 401 → auth, 429 → rate_limit; unexpected close → unavailable; 1008 → bad_request; bad frame → protocol', async (t) => {
  fake.onWebSocket('/v1/listen', () => {}, () => ({ status: 401, body: deepgramErrorBody('INVALID_AUTH', 'Invalid credentials.') }));
  let err = await failure(stt().open({ sampleRateHz: 16000, signal: signal() }));
  t.equal(err.kind, 'auth');
  t.equal(err.code, 'INVALID_AUTH');
  fake.onWebSocket('/v1/listen', () => {}, () => ({ status: 429, headers: { 'retry-after': '3' }, body: deepgramErrorBody('TOO_MANY_REQUESTS', 'Too many requests.') }));
  err = await failure(stt().open({ sampleRateHz: 16000, signal: signal() }));
  t.equal(err.kind, 'rate_limit');
  t.equal(err.retryAfterMs, 3000);

  fake.onWebSocket('/v1/listen', (sock) => sock.ws.on('message', () => sock.ws.close(1011, 'NET-0001')));
  let s = await stt().open({ sampleRateHz: 16000, signal: signal() });
  s.write(ramp(160));
  err = await failure(collect(s));
  t.equal(err.kind, 'unavailable');
  t.equal(err.status, 1011);

  fake.onWebSocket('/v1/listen', (sock) => sock.ws.on('message', () => sock.ws.close(1008, 'DATA-0000')));
  s = await stt().open({ sampleRateHz: 16000, signal: signal() });
  s.write(ramp(160));
  err = await failure(collect(s));
  t.equal(err.kind, 'bad_request');

  fake.onWebSocket('/v1/listen', (sock) => sock.ws.on('message', () => sock.ws.send('{nope')));
  s = await stt().open({ sampleRateHz: 16000, signal: signal() });
  s.write(ramp(160));
  err = await failure(collect(s));
  t.equal(err.kind, 'protocol');
});

t.test('audio with no answer for idleMs is a timeout', async (t) => {
  fake.onWebSocket('/v1/listen', () => {});
  const s = await stt({ timeouts: { idleMs: 120 } }).open({ sampleRateHz: 16000, signal: signal() });
  s.write(ramp(160));
  const started = Date.now();
  const err = await failure(collect(s));
  t.equal(err.kind, 'timeout');
  t.ok(Date.now() - started < 1000);
});

t.test('connect refused is retried then unavailable', async (t) => {
  const dead = await new WireFake().start();
  const url = dead.baseUrl;
  await dead.close();
  const err = await failure(stt({ baseUrl: url, connectRetries: 1 }).open({ sampleRateHz: 16000, signal: signal() }));
  t.equal(err.kind, 'unavailable');
});

t.test('reused frame buffers arrive as they were when written; a silent server times the handshake out', async (t) => {
  fake.onWebSocket('/v1/listen', liveServer);
  const s = await stt().open({ sampleRateHz: 16000, signal: signal() });
  const frame = new Int16Array(160).fill(7);
  s.write(frame);
  frame.fill(9); // reused right away
  s.write(frame);
  await sleep(50);
  const sock = fake.sockets.at(-1)!;
  t.equal(sock.binary[0].readInt16LE(0), 7);
  t.equal(sock.binary[1].readInt16LE(0), 9);
  s.close();

  const { createServer } = await import('node:net');
  const held: import('node:net').Socket[] = [];
  const mute = createServer((c) => held.push(c)); // accepts TCP, never answers the upgrade
  await new Promise<void>((r) => mute.listen(0, '127.0.0.1', r));
  const port = (mute.address() as import('node:net').AddressInfo).port;
  const started = Date.now();
  const err = await failure(stt({ baseUrl: `http://127.0.0.1:${port}`, timeouts: { connectMs: 50, firstByteMs: 100 } }).open({ sampleRateHz: 16000, signal: signal() }));
  t.equal(err.kind, 'timeout');
  t.ok(Date.now() - started < 1000);
  for (const c of held) c.destroy();
  mute.close();
});
