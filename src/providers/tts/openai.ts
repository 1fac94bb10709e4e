import type { AdapterOptions, TtsAdapter, TtsRequest } from '../types.js';
import { resolveTimeouts } from '../types.js';
import { joinUrl, openHttpStream } from '../llm/http.js';
import { OPENAI_BASE_URL, openAiErrorCode } from '../llm/openai.js';
import { pcmFromHttp } from './http-audio.js';

// OpenAI speech (POST /v1/audio/speech) with `response_format: "pcm"`: raw 16-bit
// little-endian mono at 24 kHz, streamed as it is generated, whatever rate was asked for.

const PROVIDER = 'OpenAI';
export const OPENAI_TTS_RATE_HZ = 24000;

export class OpenAiTts implements TtsAdapter {
  readonly provider = 'openai';

  constructor(private readonly opts: AdapterOptions) {}

  outputSampleRateHz(): number {
    return OPENAI_TTS_RATE_HZ;
  }

  async *synthesize(req: TtsRequest): AsyncGenerator<Int16Array, void, undefined> {
    const body: Record<string, unknown> = { model: req.model, input: req.text, voice: req.voice, response_format: 'pcm' };
    if (req.speed !== undefined && req.speed !== 1) body.speed = Math.min(4, Math.max(0.25, req.speed));
    const http = await openHttpStream({
      provider: PROVIDER,
      url: joinUrl(this.opts.baseUrl || OPENAI_BASE_URL, '/v1/audio/speech'),
      headers: {
        'content-type': 'application/json',
        ...(this.opts.apiKey ? { authorization: `Bearer ${this.opts.apiKey}` } : {}),
      },
      body: JSON.stringify(body),
      timeouts: resolveTimeouts(this.opts.timeouts),
      retries: this.opts.connectRetries ?? 2,
      allowPrivate: this.opts.allowPrivateUrls,
      signal: req.signal,
      errorCode: openAiErrorCode,
    });
    yield* pcmFromHttp(PROVIDER, http, { stripWav: false, expectRateHz: OPENAI_TTS_RATE_HZ });
  }
}
