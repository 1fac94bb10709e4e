import type { ServerResponse } from 'node:http';
import { jsonResponse, writeSlowly } from './server.js';

// Anthropic Messages streaming as documented: `event: <type>\ndata: {json}\n\n` for
// message_start, content_block_start/delta/stop, message_delta, message_stop, ping, error;
// error bodies {"type":"error","error":{"type","message"}} (+ request_id).

export type AnthropicEvent = { type: string; [k: string]: unknown };

export const messageStart = (inputTokens = 25): AnthropicEvent => ({
  type: 'message_start',
  message: {
    id: 'msg_fake01',
    type: 'message',
    role: 'assistant',
    content: [],
    model: 'claude-sonnet-4-5',
    stop_reason: null,
    stop_sequence: null,
    usage: { input_tokens: inputTokens, output_tokens: 1 },
  },
});
export const textStart = (index: number): AnthropicEvent => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
export const textDelta = (index: number, text: string): AnthropicEvent => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
export const toolStart = (index: number, id: string, name: string): AnthropicEvent => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name, input: {} },
});
export const jsonDelta = (index: number, partial: string): AnthropicEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json: partial },
});
export const blockStop = (index: number): AnthropicEvent => ({ type: 'content_block_stop', index });
export const messageDelta = (stopReason: string, outputTokens: number): AnthropicEvent => ({
  type: 'message_delta',
  delta: { stop_reason: stopReason, stop_sequence: null },
  usage: { output_tokens: outputTokens },
});
export const messageStop: AnthropicEvent = { type: 'message_stop' };
export const ping: AnthropicEvent = { type: 'ping' };

export function textMessage(words: string[]): AnthropicEvent[] {
  return [messageStart(), textStart(0), ping, ...words.map((w) => textDelta(0, w)), blockStop(0), messageDelta('end_turn', words.length), messageStop];
}

export async function writeMessageStream(res: ServerResponse, events: (AnthropicEvent | string)[], opts: { delayMs?: number } = {}): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': 'req_fake' });
  const frames = events.map((e) => (typeof e === 'string' ? e : `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`));
  await writeSlowly(res, frames, opts.delayMs ?? 0);
  if (!res.destroyed) res.end();
}

export function anthropicError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}): void {
  jsonResponse(res, status, { type: 'error', error: { type, message }, request_id: 'req_fake' }, headers);
}
