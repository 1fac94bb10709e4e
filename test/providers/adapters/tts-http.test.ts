import t from 'tap';
import { OpenAiTts } from '../../../src/providers/tts/openai.js';
import { DeepgramTts } from '../../../src/providers/tts/deepgram.js';
import { wavHeader } from '../../../src/providers/tts/pcm.js';
import { WireFake, writeSlowly } from '../../fakes/wire/server.js';
import { INVALID_KEY, openAiError, RATE_LIMITED, writePcm } from '../../fakes/wire/openai.js';
import { deepgramError } from '../../fakes/wire/deepgram.js';
import { collectPcm, failure, ramp, signal } from './helpers.js';

const KEY = 'sk-tts-test-abcdef123456';
const DG_KEY = 'dg-test-key-0123456789';
const fake = await new WireFake().start();
t.teardown(() => fake.close());

t.test('OpenAI /v1/audio/speech: pcm at 24 kHz, odd-sized pieces reassembled exactly', async (t) => {
  const audio = ramp(4801);
  fake.on('POST /v1/audio/speech', (_req, res) => writePcm(res, audio, 333, 1));
  const tts = new OpenAiTts({ apiKey: KEY, baseUrl: fake.baseUrl });
  t.equal(tts.outputSampleRateHz(), 24000);
  const { pcm, chunks } = await collectPcm(tts.synthesize({ text: 'Hello there.', voice: 'alloy', model: 'gpt-4o-mini-tts', sampleRateHz: 16000, speed: 1.25, signal: signal() }));
  t.same(Array.from(pcm), Array.from(audio));
  t.ok(chunks > 1, 'streamed in pieces');
  const req = fake.requests.at(-1)!;
  t.equal(req.headers.authorization, `Bearer ${KEY}`);
  t.same(JSON.parse(req.body.toString()), { model: 'gpt-4o-mini-tts', input: 'Hello there.', voice: 'alloy', response_format: 'pcm', speed: 1.25 });
});

t.test('OpenAI speech: cancellation closes the connection; errors map', async (t) => {
  let closed: Promise<void> | undefined;
  fake.on('POST /v1/audio/speech', async (req, res) => {
    closed = req.closed;
    await writePcm(res, ramp(48000), 960, 10);
  });
  const ac = new AbortController();
  const tts = new OpenAiTts({ apiKey: KEY, baseUrl: fake.baseUrl });
  let n = 0;
  const err = await failure(async () => {
    for await (const _ of tts.synthesize({ text: 'x', voice: 'alloy', model: 'tts-1', sampleRateHz: 24000, signal: ac.signal })) if (++n === 2) ac.abort();
  });
  t.equal(err.kind, 'aborted');
  await closed;

  fake.on('POST /v1/audio/speech', (_req, res) => openAiError(res, 401, INVALID_KEY(KEY)));
  const e401 = await failure(collectPcm(tts.synthesize({ text: 'x', voice: 'alloy', model: 'tts-1', sampleRateHz: 24000, signal: signal() })));
  t.equal(e401.kind, 'auth');
  t.notOk(e401.message.includes(KEY));
  fake.on('POST /v1/audio/speech', (_req, res) => openAiError(res, 429, RATE_LIMITED, { 'retry-after-ms': '1500' }));
  const e429 = await failure(collectPcm(tts.synthesize({ text: 'x', voice: 'alloy', model: 'tts-1', sampleRateHz: 24000, signal: signal() })));
  t.equal(e429.kind, 'rate_limit');
  t.equal(e429.retryAfterMs, 1500);
});

t.test('Deepgram /v1/speak: query, Token auth, raw linear16 at the requested rate', async (t) => {
  const audio = ramp(1600);
  fake.on('POST /v1/speak', (_req, res) => writePcm(res, audio, 101));
  const tts = new DeepgramTts({ apiKey: DG_KEY, baseUrl: fake.baseUrl });
  t.equal(tts.outputSampleRateHz(16000), 16000);
  t.equal(tts.outputSampleRateHz(22050), 24000, 'unsupported rates fall back to 24 kHz');
  const { pcm } = await collectPcm(tts.synthesize({ text: 'Hi.', voice: 'thalia-en', model: 'aura-2', sampleRateHz: 16000, signal: signal() }));
  t.same(Array.from(pcm), Array.from(audio));
  const req = fake.requests.at(-1)!;
  t.equal(req.path, '/v1/speak');
  t.same(Object.fromEntries(req.query), { model: 'aura-2-thalia-en', encoding: 'linear16', sample_rate: '16000', container: 'none' });
  t.equal(req.headers.authorization, `Token ${DG_KEY}`);
  t.same(JSON.parse(req.body.toString()), { text: 'Hi.' });
});

t.test('Deepgram: a WAV header that arrives anyway is stripped (even split across pieces)', async (t) => {
  const audio = ramp(800);
  fake.on('POST /v1/speak', async (_req, res) => {
    res.writeHead(200, { 'content-type': 'audio/wav' });
    const bytes = Buffer.concat([wavHeader(24000, 0xffffffff - 36), Buffer.from(audio.buffer)]);
    const pieces: Buffer[] = [];
    for (let i = 0; i < bytes.length; i += 17) pieces.push(bytes.subarray(i, i + 17));
    await writeSlowly(res, pieces, 0);
    res.end();
  });
  const tts = new DeepgramTts({ apiKey: DG_KEY, baseUrl: fake.baseUrl });
  const { pcm } = await collectPcm(tts.synthesize({ text: 'Hi.', voice: 'aura-2-thalia-en', model: 'aura-2', sampleRateHz: 24000, signal: signal() }));
  t.same(Array.from(pcm), Array.from(audio));
  t.equal(fake.requests.at(-1)!.query.get('model'), 'aura-2-thalia-en');
});

t.test('Deepgram errors: 401 INVALID_AUTH, 429, 400; first-byte timeout', async (t) => {
  const tts = new DeepgramTts({ apiKey: DG_KEY, baseUrl: fake.baseUrl, timeouts: { connectMs: 100, firstByteMs: 100 } });
  const run = () => collectPcm(tts.synthesize({ text: 'x', voice: 'thalia-en', model: 'aura-2', sampleRateHz: 24000, signal: signal() }));
  fake.on('POST /v1/speak', (_req, res) => deepgramError(res, 401, 'INVALID_AUTH', 'Invalid credentials.'));
  let err = await failure(run());
  t.equal(err.kind, 'auth');
  t.equal(err.code, 'INVALID_AUTH');
  fake.on('POST /v1/speak', (_req, res) => deepgramError(res, 429, 'TOO_MANY_REQUESTS', 'Too many requests', { 'retry-after': '1' }));
  err = await failure(run());
  t.equal(err.kind, 'rate_limit');
  t.equal(err.retryAfterMs, 1000);
  fake.on('POST /v1/speak', (_req, res) => deepgramError(res, 400, 'UNSUPPORTED_MODEL', 'No such model'));
  err = await failure(run());
  t.equal(err.kind, 'bad_request');
  fake.on('POST /v1/speak', async (_req, res) => {
    await new Promise((r) => setTimeout(r, 500));
    if (!res.destroyed) writePcm(res, ramp(10), 20);
  });
  err = await failure(run());
  t.equal(err.kind, 'timeout');
});

t.test('a slow consumer (paced playback) does not trip the idle timeout', async (t) => {
  const audio = ramp(2400);
  fake.on('POST /v1/audio/speech', (_req, res) => writePcm(res, audio, 960, 10));
  const tts = new OpenAiTts({ apiKey: KEY, baseUrl: fake.baseUrl, timeouts: { idleMs: 60 } });
  let total = 0;
  let chunks = 0;
  for await (const c of tts.synthesize({ text: 'x', voice: 'alloy', model: 'tts-1', sampleRateHz: 24000, signal: signal() })) {
    total += c.length;
    chunks++;
    await new Promise((r) => setTimeout(r, 120));
  }
  t.equal(total, 2400);
  t.ok(chunks > 1, `several chunks (${chunks})`);
});
