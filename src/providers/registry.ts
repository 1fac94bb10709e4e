import { ProviderError } from './errors.js';
import type { AdapterOptions, LlmAdapter, RealtimeAdapter, SttAdapter, Timeouts, TtsAdapter } from './types.js';
import { AnthropicLlm } from './llm/anthropic.js';
import { LocalEchoLlm } from './llm/local-echo.js';
import { OpenAiLlm } from './llm/openai.js';
import { OpenAiRealtime } from './realtime/openai.js';
import { DeepgramStt } from './stt/deepgram.js';
import { LocalPocketsphinxStt, type PocketsphinxOptions } from './stt/local-pocketsphinx.js';
import { OpenAiStt } from './stt/openai.js';
import { DeepgramTts } from './tts/deepgram.js';
import { ElevenLabsTts } from './tts/elevenlabs.js';
import { LocalEspeakTts } from './tts/local-espeak.js';
import { OpenAiTts } from './tts/openai.js';

// Picks the adapter for each stage of a session's pipeline from the stage's provider. Takes
// the pipeline_snapshot stages (contract §3: the stage fields plus `provider`) and, per stage,
// the account's decrypted key and base_url — fetched at call time, never stored here.

type Stage = 'stt' | 'llm' | 'tts' | 'realtime';

export interface StageConfig {
  stt?: { provider: string; model: string; language?: string; endpointing_ms?: number };
  llm?: { provider: string; model: string; temperature?: number; max_tokens?: number };
  tts?: { provider: string; model: string; voice: string; speed?: number };
  realtime?: { provider: string; model: string; voice: string };
}

export interface StageCredentials {
  apiKey: string | null;
  baseUrl: string | null;
}

export type Credentials = Partial<Record<Stage, StageCredentials>>;

export interface RegistryOptions {
  timeouts?: Partial<Timeouts>;
  connectRetries?: number;
  /** ALLOW_PRIVATE_URLS of the deployment (see AdapterOptions.allowPrivateUrls; default true). */
  allowPrivateUrls?: boolean;
  /** Where the local engines are (tests; default: found on $PATH and the Debian model dir). */
  espeakBinary?: string;
  pocketsphinx?: PocketsphinxOptions;
}

export const DEFAULT_ENDPOINTING_MS = 500;

export interface StageAdapters {
  stt?: { adapter: SttAdapter; language?: string; endpointingMs: number };
  llm?: { adapter: LlmAdapter; temperature?: number; maxTokens?: number };
  tts?: { adapter: TtsAdapter; model: string; voice: string; speed?: number };
  realtime?: { adapter: RealtimeAdapter; voice: string };
}

function unsupported(provider: string, stage: Stage): ProviderError {
  return new ProviderError('bad_request', `provider ${provider} has no ${stage} adapter`, { provider, code: 'unsupported_stage' });
}

function endpoint(stage: Stage, provider: string, creds: Credentials, opts: RegistryOptions): AdapterOptions {
  const c = creds[stage];
  if (provider !== 'local' && !c?.apiKey) {
    throw new ProviderError('auth', `no API key for the ${stage} stage`, { provider, code: 'missing_credentials' });
  }
  return { apiKey: c?.apiKey ?? null, baseUrl: c?.baseUrl ?? null, timeouts: opts.timeouts, connectRetries: opts.connectRetries, allowPrivateUrls: opts.allowPrivateUrls };
}

export function createAdapters(config: StageConfig, credentials: Credentials, opts: RegistryOptions = {}): StageAdapters {
  const out: StageAdapters = {};
  if (config.llm) {
    const { provider, model } = config.llm;
    const adapter =
      provider === 'openai' ? new OpenAiLlm(model, endpoint('llm', provider, credentials, opts)) :
      provider === 'anthropic' ? new AnthropicLlm(model, endpoint('llm', provider, credentials, opts)) :
      provider === 'local' && model === 'echo' ? new LocalEchoLlm() : null;
    if (!adapter) throw unsupported(provider, 'llm');
    out.llm = { adapter, temperature: config.llm.temperature, maxTokens: config.llm.max_tokens };
  }
  if (config.tts) {
    const { provider } = config.tts;
    const adapter =
      provider === 'openai' ? new OpenAiTts(endpoint('tts', provider, credentials, opts)) :
      provider === 'deepgram' ? new DeepgramTts(endpoint('tts', provider, credentials, opts)) :
      provider === 'elevenlabs' ? new ElevenLabsTts(endpoint('tts', provider, credentials, opts)) :
      provider === 'local' ? new LocalEspeakTts({ binary: opts.espeakBinary, timeouts: opts.timeouts }) : null;
    if (!adapter) throw unsupported(provider, 'tts');
    out.tts = { adapter, model: config.tts.model, voice: config.tts.voice, speed: config.tts.speed };
  }
  if (config.stt) {
    const { provider, model } = config.stt;
    const adapter =
      provider === 'openai' ? new OpenAiStt({ ...endpoint('stt', provider, credentials, opts), model }) :
      provider === 'deepgram' ? new DeepgramStt({ ...endpoint('stt', provider, credentials, opts), model }) :
      provider === 'local' ? new LocalPocketsphinxStt(opts.pocketsphinx) : null;
    if (!adapter) throw unsupported(provider, 'stt');
    out.stt = { adapter, language: config.stt.language, endpointingMs: config.stt.endpointing_ms ?? DEFAULT_ENDPOINTING_MS };
  }
  if (config.realtime) {
    const { provider, model } = config.realtime;
    if (provider !== 'openai') throw unsupported(provider, 'realtime');
    out.realtime = { adapter: new OpenAiRealtime(model, endpoint('realtime', provider, credentials, opts)), voice: config.realtime.voice };
  }
  return out;
}
