import t from 'tap';
import { createAdapters } from '../../../src/providers/registry.js';
import { ProviderError } from '../../../src/providers/errors.js';
import { OpenAiLlm } from '../../../src/providers/llm/openai.js';
import { AnthropicLlm } from '../../../src/providers/llm/anthropic.js';
import { LocalEchoLlm } from '../../../src/providers/llm/local-echo.js';
import { DeepgramStt } from '../../../src/providers/stt/deepgram.js';
import { OpenAiStt } from '../../../src/providers/stt/openai.js';
import { LocalPocketsphinxStt } from '../../../src/providers/stt/local-pocketsphinx.js';
import { ElevenLabsTts } from '../../../src/providers/tts/elevenlabs.js';
import { DeepgramTts } from '../../../src/providers/tts/deepgram.js';
import { OpenAiTts } from '../../../src/providers/tts/openai.js';
import { LocalEspeakTts } from '../../../src/providers/tts/local-espeak.js';
import { OpenAiRealtime } from '../../../src/providers/realtime/openai.js';
import { CATALOGUE } from '../../../src/contract/catalogue.js';

const key = { apiKey: 'k-123456', baseUrl: null };

t.test('cascade: Deepgram STT + Anthropic LLM + ElevenLabs TTS, stage settings carried', async (t) => {
  const a = createAdapters(
    {
      stt: { provider: 'deepgram', model: 'nova-3', language: 'en-US' },
      llm: { provider: 'anthropic', model: 'claude-haiku-4-5', temperature: 0.4, max_tokens: 300 },
      tts: { provider: 'elevenlabs', model: 'eleven_flash_v2_5', voice: 'JBFqnCBsd6RMkjVDRZzb', speed: 1.1 },
    },
    { stt: key, llm: key, tts: key },
  );
  t.ok(a.stt?.adapter instanceof DeepgramStt);
  t.equal(a.stt?.endpointingMs, 500, 'default endpointing');
  t.equal(a.stt?.language, 'en-US');
  t.ok(a.llm?.adapter instanceof AnthropicLlm);
  t.equal(a.llm?.adapter.model, 'claude-haiku-4-5');
  t.same([a.llm?.temperature, a.llm?.maxTokens], [0.4, 300]);
  t.ok(a.tts?.adapter instanceof ElevenLabsTts);
  t.same([a.tts?.voice, a.tts?.speed], ['JBFqnCBsd6RMkjVDRZzb', 1.1]);
});

t.test('every provider and stage in the catalogue has an adapter', async (t) => {
  const expected: Record<string, Record<string, unknown>> = {
    openai: { stt: OpenAiStt, llm: OpenAiLlm, tts: OpenAiTts, realtime: OpenAiRealtime },
    deepgram: { stt: DeepgramStt, tts: DeepgramTts },
    elevenlabs: { tts: ElevenLabsTts },
    anthropic: { llm: AnthropicLlm },
    local: { stt: LocalPocketsphinxStt, llm: LocalEchoLlm, tts: LocalEspeakTts },
  };
  for (const entry of CATALOGUE) {
    for (const [stage, models] of Object.entries(entry.stages)) {
      const model = models![0];
      const cfg = stage === 'tts' || stage === 'realtime' ? { provider: entry.provider, model, voice: 'v' } : { provider: entry.provider, model };
      const made = createAdapters({ [stage]: cfg }, { [stage]: key }) as Record<string, { adapter: unknown }>;
      t.ok(made[stage].adapter instanceof (expected[entry.provider][stage] as new (...a: never[]) => unknown), `${entry.provider} ${stage}`);
    }
  }
});

t.test('unknown provider/stage and missing keys are clear errors', async (t) => {
  t.throws(() => createAdapters({ realtime: { provider: 'deepgram', model: 'x', voice: 'v' } }, { realtime: key }), ProviderError);
  try {
    createAdapters({ llm: { provider: 'openai', model: 'gpt-4.1' } }, {});
    t.fail('should throw');
  } catch (err) {
    t.equal((err as ProviderError).code, 'missing_credentials');
  }
  t.ok(createAdapters({ llm: { provider: 'local', model: 'echo' } }, {}).llm, 'local needs no key');
});
