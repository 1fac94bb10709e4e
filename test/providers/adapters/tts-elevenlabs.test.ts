import t from 'tap';
import { ElevenLabsTts } from '../../../src/providers/tts/elevenlabs.js';
import { WireFake, sleep, type ReceivedSocket } from '../../fakes/wire/server.js';
import { audioMessage, finalMessage, sentTexts, waitForMessages } from '../../fakes/wire/elevenlabs.js';
import { collectPcm, failure, ramp, signal } from './helpers.js';

const KEY = 'xi-test-key-0123456789abcd';
const fake = await new WireFake().start();
t.teardown(() => fake.close());
const tts = (opts: Record<string, unknown> = {}) => new ElevenLabsTts({ apiKey: KEY, baseUrl: fake.baseUrl, ...opts });

/** Answers each flush or end with one audio message of `samples`; isFinal after the end. */
function speaker(samples: number) {
  return (sock: ReceivedSocket) => {
    let k = 0;
    sock.ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.flush || msg.text === '') {
        sock.ws.send(JSON.stringify(audioMessage(ramp(samples, k++ * 1000), 'abc')));
      }
      if (msg.text === '') {
        sock.ws.send(JSON.stringify(finalMessage));
        sock.ws.close(1000);
      }
    });
  };
}

t.test('synthesize: URL, handshake key, opening message, text, end; base64 PCM decoded', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', speaker(321));
  const a = tts();
  t.equal(a.outputSampleRateHz(16000), 16000);
  const { pcm } = await collectPcm(a.synthesize({ text: 'Hello world.', voice: 'JBFqnCBsd6RMkjVDRZzb', model: 'eleven_flash_v2_5', sampleRateHz: 16000, speed: 1.1, signal: signal() }));
  t.same(Array.from(pcm), Array.from(ramp(321, 0)));
  const sock = fake.sockets.at(-1)!;
  t.equal(sock.path, '/v1/text-to-speech/JBFqnCBsd6RMkjVDRZzb/stream-input');
  t.same(Object.fromEntries(sock.query), { model_id: 'eleven_flash_v2_5', output_format: 'pcm_16000' });
  t.equal(sock.headers['xi-api-key'], KEY);
  t.same(sock.messages, [
    { text: ' ', voice_settings: { speed: 1.1 }, xi_api_key: KEY },
    { text: 'Hello world.' },
    { text: '' },
  ]);
});

t.test('token streaming session: sendText, flush at sentence ends, end', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', speaker(100));
  const s = await tts().open({ voice: 'v1', model: 'eleven_turbo_v2_5', sampleRateHz: 24000, signal: signal() });
  t.equal(s.sampleRateHz, 24000);
  const got = collectPcm(s);
  s.sendText('Hello ');
  s.sendText('there. ');
  s.flush();
  s.sendText('Bye.');
  s.end();
  const { pcm, chunks } = await got;
  t.equal(chunks, 2);
  t.equal(pcm.length, 200);
  t.same(sentTexts(fake.sockets.at(-1)!), [{ text: 'Hello ' }, { text: 'there. ' }, { text: ' ', flush: true }, { text: 'Bye.' }, { text: '' }]);
});

t.test('close() mid-stream (barge-in) ends the iterator quietly and drops the socket', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', (sock) => {
    sock.ws.on('message', async (data) => {
      if (JSON.parse(data.toString()).flush) for (let i = 0; i < 100 && sock.ws.readyState === 1; i++) {
        sock.ws.send(JSON.stringify(audioMessage(ramp(240), 'a')));
        await sleep(10);
      }
    });
  });
  const s = await tts().open({ voice: 'v1', model: 'eleven_flash_v2_5', sampleRateHz: 16000, signal: signal() });
  s.sendText('A long sentence.');
  s.flush();
  let n = 0;
  for await (const _ of s) if (++n === 3) s.close();
  t.equal(n, 3);
  const closed = await fake.sockets.at(-1)!.closed;
  t.ok(closed.code === 1006 || closed.code === 1005 || closed.code === 1000, `fake saw the close (${closed.code})`);
});

t.test('abort signal fails the stream with aborted and closes the socket', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', () => {});
  const ac = new AbortController();
  const s = await tts().open({ voice: 'v1', model: 'eleven_flash_v2_5', sampleRateHz: 16000, signal: ac.signal });
  setTimeout(() => ac.abort(), 30);
  const err = await failure(collectPcm(s));
  t.equal(err.kind, 'aborted');
  await fake.sockets.at(-1)!.closed;
});

t.test('handshake 401 is auth; an error message is mapped; a bad frame is protocol', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', () => {}, () => ({ status: 401, body: { detail: { status: 'invalid_api_key', message: `Invalid API key: ${KEY}` } } }));
  let err = await failure(tts().open({ voice: 'v', model: 'm', sampleRateHz: 16000, signal: signal() }));
  t.equal(err.kind, 'auth');
  t.equal(err.code, 'invalid_api_key');
  t.notOk(err.message.includes(KEY));

  fake.onWebSocket('/v1/text-to-speech/', (sock) => {
    sock.ws.on('message', () => {
      if (sock.messages.length === 2) {
        sock.ws.send(JSON.stringify({ message: 'You have exceeded your quota', error: 'quota_exceeded', code: 1008 }));
        sock.ws.close(1008, 'quota_exceeded');
      }
    });
  });
  err = await failure(collectPcm(tts().synthesize({ text: 'x', voice: 'v', model: 'm', sampleRateHz: 16000, signal: signal() })));
  t.equal(err.kind, 'rate_limit');
  t.equal(err.code, 'quota_exceeded');

  fake.onWebSocket('/v1/text-to-speech/', (sock) => sock.ws.on('message', () => sock.messages.length === 2 && sock.ws.send('not json')));
  err = await failure(collectPcm(tts().synthesize({ text: 'x', voice: 'v', model: 'm', sampleRateHz: 16000, signal: signal() })));
  t.equal(err.kind, 'protocol');

  fake.onWebSocket('/v1/text-to-speech/', (sock) => sock.ws.on('message', () => sock.messages.length === 2 && sock.ws.close(1011, 'internal')));
  err = await failure(collectPcm(tts().synthesize({ text: 'x', voice: 'v', model: 'm', sampleRateHz: 16000, signal: signal() })));
  t.equal(err.kind, 'unavailable');
});

t.test('no audio after the end within the first-byte budget is a timeout', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', () => {});
  const started = Date.now();
  const err = await failure(collectPcm(tts({ timeouts: { firstByteMs: 150 } }).synthesize({ text: 'x', voice: 'v', model: 'm', sampleRateHz: 16000, signal: signal() })));
  t.equal(err.kind, 'timeout');
  t.ok(Date.now() - started < 1000);
  await waitForMessages(fake.sockets.at(-1)!, 3);
});

t.test('a flush after the audio already came (schedule triggered early) does not time out', async (t) => {
  fake.onWebSocket('/v1/text-to-speech/', (sock) => {
    sock.ws.on('message', (data) => {
      const msg = JSON.parse(data.toString());
      if (msg.text === 'A long sentence that the server synthesized before the flush. ') sock.ws.send(JSON.stringify(audioMessage(ramp(100), 'x')));
      if (msg.text === '') {
        sock.ws.send(JSON.stringify(finalMessage));
        sock.ws.close(1000);
      }
    });
  });
  const s = await tts({ timeouts: { firstByteMs: 80 } }).open({ voice: 'v', model: 'm', sampleRateHz: 16000, signal: signal() });
  const got = collectPcm(s);
  s.sendText('A long sentence that the server synthesized before the flush. ');
  await sleep(30);
  s.flush();
  await sleep(200);
  s.end();
  const { pcm } = await got;
  t.equal(pcm.length, 100);
});
