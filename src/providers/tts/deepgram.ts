import { safeCode } from '../errors.js';
import type { AdapterOptions, TtsAdapter, TtsRequest } from '../types.js';
import { DEEPGRAM } from '../hosts.js';
import { openHttpStream } from '../llm/http.js';
import { providerCall, type ProviderApi } from '../provider-call.js';
import { pcmFromHttp } from './http-audio.js';

// Deepgram Aura (POST /v1/speak?model=…&encoding=linear16&sample_rate=…&container=none,
// body {"text"}, `Authorization: Token <key>`). linear16 comes wrapped in a WAV container
// unless container=none; we ask for none and still strip a header if one arrives.
// The catalogue's model is the family (`aura-2`) and the stage's voice the speaker
// (`thalia-en`): together the model id `aura-2-thalia-en`. A full id in `voice` is used as is.

const PROVIDER = DEEPGRAM.name;
const RATES_HZ = [8000, 16000, 24000, 32000, 48000];

/** `{"err_code","err_msg","request_id"}` (or the newer `{"category","message"}`) → code. */
export function deepgramErrorCode(body: unknown): string | undefined {
  const b = body as { err_code?: unknown; category?: unknown } | undefined;
  return safeCode(b?.err_code) ?? safeCode(b?.category);
}

/** Deepgram's API as its adapters call it. */
export const DEEPGRAM_API: ProviderApi = { ...DEEPGRAM, errorCode: deepgramErrorCode };

export function deepgramVoiceModel(model: string, voice: string): string {
  if (/^aura(-2)?-/.test(voice)) return voice;
  return `${model.replace(/-+$/, '')}-${voice}`;
}

export class DeepgramTts implements TtsAdapter {
  readonly provider = 'deepgram';

  constructor(private readonly opts: AdapterOptions) {}

  outputSampleRateHz(requestedHz: number): number {
    return RATES_HZ.includes(requestedHz) ? requestedHz : 24000;
  }

  async *synthesize(req: TtsRequest): AsyncGenerator<Int16Array, void, undefined> {
    const rateHz = this.outputSampleRateHz(req.sampleRateHz);
    const q = new URLSearchParams({ model: deepgramVoiceModel(req.model, req.voice), encoding: 'linear16', sample_rate: String(rateHz), container: 'none' });
    const headers = { 'content-type': 'application/json' };
    const call = providerCall(DEEPGRAM_API, this.opts, { path: '/v1/speak', query: q, headers, signal: req.signal });
    const http = await openHttpStream({ ...call, body: JSON.stringify({ text: req.text }) });
    yield* pcmFromHttp(PROVIDER, http, { stripWav: true, expectRateHz: rateHz });
  }
}
