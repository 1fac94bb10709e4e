import type { AdapterOptions, TtsAdapter, TtsRequest } from '../types.js';
import { openHttpStream } from '../llm/http.js';
import { OPENAI_API } from '../llm/openai.js';
import { providerCall } from '../provider-call.js';
import { pcmFromHttp } from './http-audio.js';

// OpenAI speech (POST /v1/audio/speech) with `response_format: "pcm"`: raw 16-bit
// little-endian mono at 24 kHz, streamed as it is generated, whatever rate was asked for.

const PROVIDER = OPENAI_API.name;
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
    const headers = { 'content-type': 'application/json' };
    const call = providerCall(OPENAI_API, this.opts, { path: '/v1/audio/speech', headers, signal: req.signal });
    const http = await openHttpStream({ ...call, body: JSON.stringify(body) });
    yield* pcmFromHttp(PROVIDER, http, { stripWav: false, expectRateHz: OPENAI_TTS_RATE_HZ });
  }
}
