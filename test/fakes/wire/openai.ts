import type { ServerResponse } from 'node:http';
import { jsonResponse, sleep, writeSlowly } from './server.js';

// OpenAI's documented wire format: chat.completion.chunk SSE frames ending in `data: [DONE]`,
// error bodies {"error":{"message","type","param","code"}}, raw PCM from /v1/audio/speech,
// {"text"} from /v1/audio/transcriptions, and Realtime GA server events.

export interface ChunkDelta {
  role?: 'assistant';
  content?: string | null;
  tool_calls?: { index: number; id?: string; type?: 'function'; function: { name?: string; arguments?: string } }[];
}

let seq = 0;
export function chatChunk(delta: ChunkDelta, finishReason: string | null = null, model = 'gpt-4.1-mini'): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000 + seq++,
    model,
    system_fingerprint: 'fp_fake',
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    usage: null,
  };
}

export function usageChunk(prompt: number, completion: number): Record<string, unknown> {
  return {
    id: 'chatcmpl-fake1',
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'gpt-4.1-mini',
    choices: [],
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/** `data: {json}\n\n` per chunk, then `data: [DONE]\n\n` unless `done: false`. */
export async function writeChatStream(
  res: ServerResponse,
  chunks: unknown[],
  opts: { delayMs?: number; done?: boolean; end?: boolean } = {},
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const frames = chunks.map((c) => (typeof c === 'string' ? c : `data: ${JSON.stringify(c)}\n\n`));
  if (opts.done !== false) frames.push('data: [DONE]\n\n');
  await writeSlowly(res, frames, opts.delayMs ?? 0);
  if (opts.end !== false) res.end();
}

export function textStream(words: string[]): unknown[] {
  return [chatChunk({ role: 'assistant', content: '' }), ...words.map((w) => chatChunk({ content: w })), chatChunk({}, 'stop'), usageChunk(12, words.length)];
}

export function openAiError(
  res: ServerResponse,
  status: number,
  error: { message: string; type: string; param: string | null; code: string | null },
  headers: Record<string, string> = {},
): void {
  jsonResponse(res, status, { error }, { 'x-request-id': 'req_fake', ...headers });
}

export const INVALID_KEY = (key: string) => ({
  message: `Incorrect API key provided: ${key}. You can find your API key at https://platform.openai.com/account/api-keys.`,
  type: 'invalid_request_error',
  param: null,
  code: 'invalid_api_key',
});
export const RATE_LIMITED = { message: 'Rate limit reached for requests', type: 'requests', param: null, code: 'rate_limit_exceeded' };
export const SERVER_ERROR = { message: 'The server had an error while processing your request.', type: 'server_error', param: null, code: null };

/** Raw PCM16 24 kHz mono, like `response_format: "pcm"`, in pieces. */
export async function writePcm(res: ServerResponse, pcm: Int16Array, pieceBytes: number, delayMs = 0): Promise<void> {
  res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  const pieces: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += pieceBytes) pieces.push(bytes.subarray(i, i + pieceBytes));
  await writeSlowly(res, pieces, delayMs);
  if (!res.destroyed) res.end();
}

/** Parts of a multipart/form-data body (enough for the transcription upload). */
export function parseMultipart(body: Buffer, contentType: string): Map<string, { filename?: string; type?: string; data: Buffer }> {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/.exec(contentType);
  const out = new Map<string, { filename?: string; type?: string; data: Buffer }>();
  if (!m) return out;
  const boundary = Buffer.from(`--${m[1] ?? m[2]}`);
  let pos = body.indexOf(boundary);
  while (pos !== -1) {
    const start = pos + boundary.length;
    if (body.subarray(start, start + 2).toString() === '--') break;
    const next = body.indexOf(boundary, start);
    if (next === -1) break;
    const part = body.subarray(start + 2, next - 2); // skip CRLF after boundary and before next
    const headEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headEnd).toString();
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const filename = /filename="([^"]*)"/.exec(head)?.[1];
    const type = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1];
    if (name) out.set(name, { filename, type, data: part.subarray(headEnd + 4) });
    pos = next;
  }
  return out;
}

export { sleep };
