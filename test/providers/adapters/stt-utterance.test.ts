import t from 'tap';
import { execFileSync } from 'node:child_process';
import { OpenAiStt } from '../../../src/providers/stt/openai.js';
import { LocalPocketsphinxStt, resampleLinear } from '../../../src/providers/stt/local-pocketsphinx.js';
import { LocalEspeakTts } from '../../../src/providers/tts/local-espeak.js';
import { findLocalEngines } from '../../../src/providers/verify/local.js';
import { WireFake, jsonResponse, sleep } from '../../fakes/wire/server.js';
import { INVALID_KEY, openAiError, parseMultipart, RATE_LIMITED } from '../../fakes/wire/openai.js';
import { collect, collectPcm, failure, ramp, signal } from './helpers.js';

const KEY = 'sk-stt-test-zyxwvu987654';
const fake = await new WireFake().start();
t.teardown(() => fake.close());
const stt = (opts: Record<string, unknown> = {}) => new OpenAiStt({ apiKey: KEY, baseUrl: fake.baseUrl, model: 'gpt-4o-mini-transcribe', ...opts });

t.test('OpenAI: each commit uploads one WAV utterance as multipart; finals come back in order', async (t) => {
  let n = 0;
  fake.on('POST /v1/audio/transcriptions', async (_req, res) => {
    const k = ++n;
    await sleep(k === 1 ? 40 : 0); // the first answer is slower: order must still hold
    jsonResponse(res, 200, { text: k === 1 ? 'Hello there. ' : 'Second one.' });
  });
  const s = await stt().open({ sampleRateHz: 16000, language: 'en-US', signal: signal() });
  t.equal(stt().streaming, false);
  const events = collect(s);
  s.write(ramp(1600));
  s.write(ramp(1600, 5));
  s.commit();
  s.write(ramp(100));
  s.commit(); // 6 ms: too short, dropped
  s.write(ramp(3200));
  await s.finish(); // commits the rest
  t.same(await events, [
    { type: 'final', text: 'Hello there.', speechFinal: true },
    { type: 'final', text: 'Second one.', speechFinal: true },
  ]);
  const req = fake.requests.filter((r) => r.path === '/v1/audio/transcriptions').at(-2)!;
  t.equal(req.headers.authorization, `Bearer ${KEY}`);
  const parts = parseMultipart(req.body, String(req.headers['content-type']));
  t.equal(parts.get('model')?.data.toString(), 'gpt-4o-mini-transcribe');
  t.equal(parts.get('language')?.data.toString(), 'en');
  t.equal(parts.get('response_format')?.data.toString(), 'json');
  const file = parts.get('file')!;
  t.equal(file.filename, 'utterance.wav');
  t.equal(file.type, 'audio/wav');
  t.equal(file.data.toString('ascii', 0, 4), 'RIFF');
  t.equal(file.data.readUInt32LE(24), 16000, 'WAV sample rate');
  t.equal(file.data.readUInt32LE(40), 3200 * 2, 'data bytes');
  t.same(Array.from(new Int16Array(file.data.buffer.slice(file.data.byteOffset + 44, file.data.byteOffset + 44 + 3200 * 2))), [...ramp(1600), ...ramp(1600, 5)]);
});

t.test('OpenAI: a 429 on one utterance is an error event and the session goes on; 401 ends it', async (t) => {
  let n = 0;
  fake.on('POST /v1/audio/transcriptions', (_req, res) => (++n === 1 ? openAiError(res, 429, RATE_LIMITED, { 'retry-after': '1' }) : jsonResponse(res, 200, { text: 'ok' })));
  let s = await stt().open({ sampleRateHz: 8000, signal: signal() });
  let events = collect(s);
  s.write(ramp(1600));
  s.commit();
  s.write(ramp(1600));
  await s.finish();
  const got = await events;
  t.equal(got.length, 2);
  t.match(got[0], { type: 'error', error: { kind: 'rate_limit', retryAfterMs: 1000 } });
  t.same(got[1], { type: 'final', text: 'ok', speechFinal: true });

  fake.on('POST /v1/audio/transcriptions', (_req, res) => openAiError(res, 401, INVALID_KEY(KEY)));
  s = await stt().open({ sampleRateHz: 8000, signal: signal() });
  events = collect(s);
  s.write(ramp(1600));
  s.commit();
  const err = await failure(events);
  t.equal(err.kind, 'auth');
  t.notOk(err.message.includes(KEY));
});

t.test('OpenAI: abort cancels an upload in flight (the fake sees the close)', async (t) => {
  let closed: Promise<void> | undefined;
  fake.on('POST /v1/audio/transcriptions', async (req, res) => {
    closed = req.closed;
    await sleep(2000);
    if (!res.destroyed) jsonResponse(res, 200, { text: 'late' });
  });
  const ac = new AbortController();
  const s = await stt().open({ sampleRateHz: 8000, signal: ac.signal });
  const events = collect(s);
  s.write(ramp(1600));
  s.commit();
  await sleep(50);
  ac.abort();
  const err = await failure(events);
  t.equal(err.kind, 'aborted');
  await closed;
});

t.test('resampling to 16 kHz keeps the duration', async (t) => {
  t.equal(resampleLinear(ramp(24000), 24000, 16000).length, 16000);
  t.equal(resampleLinear(ramp(8000), 8000, 16000).length, 16000);
});

const engines = await findLocalEngines();
let espeak = true;
try {
  execFileSync('espeak-ng', ['--version'], { stdio: 'ignore' });
} catch {
  espeak = false;
}
const skipPs = engines.pocketsphinx && engines.pocketsphinxModel && espeak ? false : 'pocketsphinx, pocketsphinx-en-us or espeak-ng not installed';

t.test('PocketSphinx transcribes espeak-ng speech (22.05 kHz, resampled)', { skip: skipPs, timeout: 60000 }, async (t) => {
  const { pcm } = await collectPcm(new LocalEspeakTts().synthesize({ text: 'hello world', voice: 'en-us', model: 'espeak-ng', sampleRateHz: 22050, signal: signal() }));
  const s = await new LocalPocketsphinxStt().open({ sampleRateHz: 22050, language: 'en-US', signal: signal() });
  const events = collect(s);
  s.write(pcm);
  await s.finish();
  const got = await events;
  t.equal(got.length, 1);
  t.match(got[0], { type: 'final', speechFinal: true, text: /hello/ });
});

t.test('PocketSphinx: missing binary or model is a clear error; other languages refused', async (t) => {
  let err = await failure(new LocalPocketsphinxStt({ binary: '/nonexistent/pocketsphinx_continuous', modelDir: '/nonexistent' }).open({ sampleRateHz: 16000, signal: signal() }).then(async (s) => {
    const ev = collect(s);
    s.write(ramp(3200));
    await s.finish();
    return ev;
  }));
  t.equal(err.code, 'not_installed');
  t.match(err.message, /pocketsphinx-en-us/);
  err = await failure(new LocalPocketsphinxStt().open({ sampleRateHz: 16000, language: 'de-DE', signal: signal() }));
  t.equal(err.kind, 'bad_request');
});
