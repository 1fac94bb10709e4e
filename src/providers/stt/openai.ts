import { randomBytes } from 'node:crypto';
import { protocolError } from '../errors.js';
import type { AdapterOptions, SttAdapter, SttOpenOptions, SttSession } from '../types.js';
import { openHttpStream, parseJsonBody, readAll } from '../llm/http.js';
import { OPENAI_API } from '../llm/openai.js';
import { providerCall } from '../provider-call.js';
import { encodeWav } from '../tts/pcm.js';
import { UtteranceSession } from './utterance.js';

// OpenAI transcriptions (POST /v1/audio/transcriptions, multipart/form-data with `file`
// (a WAV we build from the utterance), `model`, `language` (ISO-639-1), `response_format=json`)
// → {"text"}. Speech is segmented by the engine's VAD: each commit() is one upload.

const PROVIDER = OPENAI_API.name;

export interface OpenAiSttOptions extends AdapterOptions {
  model: string;
}

/** multipart/form-data, built by hand so the body is a replayable Buffer. */
export function multipart(fields: Record<string, string>, file: { name: string; filename: string; type: string; data: Buffer }): { body: Buffer; contentType: string } {
  const boundary = `----vas${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

export class OpenAiStt implements SttAdapter {
  readonly provider = 'openai';
  readonly streaming = false;

  constructor(private readonly opts: OpenAiSttOptions) {}

  async open(o: SttOpenOptions): Promise<SttSession> {
    const language = o.language?.split('-')[0]?.toLowerCase();
    const transcribe = async (pcm: Int16Array, signal: AbortSignal): Promise<string> => {
      const fields: Record<string, string> = { model: this.opts.model, response_format: 'json' };
      if (language && /^[a-z]{2,3}$/.test(language)) fields.language = language;
      const { body, contentType } = multipart(fields, { name: 'file', filename: 'utterance.wav', type: 'audio/wav', data: encodeWav(pcm, o.sampleRateHz) });
      const call = providerCall(OPENAI_API, this.opts, { path: '/v1/audio/transcriptions', headers: { 'content-type': contentType }, signal });
      const http = await openHttpStream({ ...call, body });
      const json = parseJsonBody(PROVIDER, await readAll(http)) as { text?: unknown };
      if (typeof json?.text !== 'string') throw protocolError(PROVIDER, 'a transcription without text');
      return json.text;
    };
    return new UtteranceSession(PROVIDER, o.sampleRateHz, transcribe, o.signal);
  }
}
