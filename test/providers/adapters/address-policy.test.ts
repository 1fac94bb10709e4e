import t from 'tap';
import { AnthropicLlm } from '../../../src/providers/llm/anthropic.js';
import { OpenAiLlm } from '../../../src/providers/llm/openai.js';
import { OpenAiRealtime } from '../../../src/providers/realtime/openai.js';
import { createAdapters } from '../../../src/providers/registry.js';
import { DeepgramStt } from '../../../src/providers/stt/deepgram.js';
import { OpenAiStt } from '../../../src/providers/stt/openai.js';
import { DeepgramTts } from '../../../src/providers/tts/deepgram.js';
import { ElevenLabsTts } from '../../../src/providers/tts/elevenlabs.js';
import { OpenAiTts } from '../../../src/providers/tts/openai.js';
import { startProviderFakes } from '../../fakes/wire/providers.js';
import { collectPcm, failure, signal } from './helpers.js';

// ALLOW_PRIVATE_URLS=0: adapters connect only to public addresses, with the same connect-time
// check as account verification (shared/net/address-policy). A base_url that is a literal
// private address is refused before anything is sent; a host name is resolved once, every
// address checked, and the socket connects to the checked address or not at all. Either way
// the provider (here a wire fake on 127.0.0.1) never sees a connection.

// `target` only ever gets refused attempts: it must see no connection at all. `open` shows
// the same adapters do connect when private URLs are allowed.
const target = await startProviderFakes();
const open = await startProviderFakes({ replies: ['Hello there.'] });
t.teardown(async () => {
  await target.close();
  await open.close();
});
const port = new URL(target.baseUrl).port;
const KEY = 'sk-policy-test-0000';

const bases = { literal: `http://127.0.0.1:${port}`, name: `http://localhost:${port}`, v6: `http://[::1]:${port}` };

type Attempt = (baseUrl: string, allowPrivateUrls: boolean) => Promise<unknown>;

const attempts: Record<string, Attempt> = {
  'OpenAI LLM (HTTP)': async (baseUrl, allow) => {
    for await (const _ of new OpenAiLlm('gpt-4.1-mini', { apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0 }).stream({ messages: [{ role: 'user', content: 'hi' }], signal: signal() })) void _;
  },
  'Anthropic LLM (HTTP)': async (baseUrl, allow) => {
    for await (const _ of new AnthropicLlm('claude-haiku-4-5', { apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0 }).stream({ messages: [{ role: 'user', content: 'hi' }], signal: signal() })) void _;
  },
  'OpenAI TTS (HTTP)': (baseUrl, allow) => collectPcm(new OpenAiTts({ apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0 }).synthesize({ text: 'hi', voice: 'alloy', model: 'gpt-4o-mini-tts', sampleRateHz: 24000, signal: signal() })),
  'Deepgram TTS (HTTP)': (baseUrl, allow) => collectPcm(new DeepgramTts({ apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0 }).synthesize({ text: 'hi', voice: 'thalia-en', model: 'aura-2', sampleRateHz: 16000, signal: signal() })),
  'OpenAI STT (HTTP)': async (baseUrl, allow) => {
    const s = await new OpenAiStt({ apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0, model: 'gpt-4o-mini-transcribe' }).open({ sampleRateHz: 16000, signal: signal() });
    s.write(new Int16Array(1600).fill(3000));
    s.commit();
    const it = s[Symbol.asyncIterator]();
    const first = await it.next();
    s.close();
    if (first.value?.type === 'error') throw first.value.error;
  },
  'Deepgram STT (WebSocket)': async (baseUrl, allow) => (await new DeepgramStt({ apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0, model: 'nova-3' }).open({ sampleRateHz: 16000, signal: signal() })).close(),
  'ElevenLabs TTS (WebSocket)': (baseUrl, allow) => collectPcm(new ElevenLabsTts({ apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0 }).synthesize({ text: 'hi', voice: 'JBFqnCBsd6RMkjVDRZzb', model: 'eleven_flash_v2_5', sampleRateHz: 16000, signal: signal() })),
  'OpenAI Realtime (WebSocket)': async (baseUrl, allow) => (await new OpenAiRealtime('gpt-realtime', { apiKey: KEY, baseUrl, allowPrivateUrls: allow, connectRetries: 0 }).connect({ signal: signal() })).close(),
};

for (const [name, attempt] of Object.entries(attempts)) {
  t.test(`${name}: a base_url on a private address is refused without connecting`, async (t) => {
    for (const [kind, base] of Object.entries(bases)) {
      const err = await failure(() => attempt(base, false));
      t.equal(err.kind, 'bad_request', `${kind}: not recoverable`);
      t.equal(err.code, 'destination_blocked', `${kind}: ${err.message}`);
      t.notOk(err.recoverable);
      t.notOk(err.message.includes(KEY));
    }
    await new Promise((r) => setTimeout(r, 20));
    t.same({ connections: target.connections, requests: target.requests.length, sockets: target.sockets.length }, { connections: 0, requests: 0, sockets: 0 }, 'the provider saw no connection');
    // The same adapter reaches the provider when private URLs are allowed (development, tests).
    const before = open.requests.length + open.sockets.length;
    await attempt(open.baseUrl, true);
    t.ok(open.requests.length + open.sockets.length > before, 'allowed: it connected');
  });
}

t.test('the registry passes the deployment setting to every adapter', async (t) => {
  const creds = { apiKey: KEY, baseUrl: bases.name };
  const adapters = createAdapters(
    { llm: { provider: 'anthropic', model: 'claude-haiku-4-5' }, stt: { provider: 'deepgram', model: 'nova-3' }, tts: { provider: 'elevenlabs', model: 'eleven_flash_v2_5', voice: 'v' } },
    { llm: creds, stt: creds, tts: creds },
    { allowPrivateUrls: false, connectRetries: 0 },
  );
  const llm = await failure(async () => {
    for await (const _ of adapters.llm!.adapter.stream({ messages: [{ role: 'user', content: 'hi' }], signal: signal() })) void _;
  });
  t.equal(llm.code, 'destination_blocked');
  t.equal((await failure(adapters.stt!.adapter.open({ sampleRateHz: 16000, signal: signal() }))).code, 'destination_blocked');
  t.equal((await failure(collectPcm(adapters.tts!.adapter.synthesize({ text: 'hi', voice: 'v', model: 'eleven_flash_v2_5', sampleRateHz: 16000, signal: signal() })))).code, 'destination_blocked');
  t.equal(target.connections, 0);
});
