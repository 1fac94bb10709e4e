import type { z } from 'zod';
import { httpError, protocolError, ProviderError, safeCode } from '../errors.js';
import { parseJsonObject } from '../json.js';
import type { AdapterOptions, LlmAdapter, LlmEvent, LlmFinishReason, LlmMessage, LlmRequest } from '../types.js';
import { ANTHROPIC, ANTHROPIC_VERSION } from '../hosts.js';
import { providerCall, type ProviderApi } from '../provider-call.js';
import { openHttpStream } from './http.js';
import { parseSse, type SseEvent } from './sse.js';
import { isMappedType, JsonDelta, StreamEvent, TextBlock, TextDelta, ToolUseBlock } from './anthropic-events.js';

// Anthropic Messages API (POST /v1/messages, stream: true, `anthropic-version: 2023-06-01`).
// SSE events: message_start, content_block_start (text | tool_use), content_block_delta
// (text_delta | input_json_delta), content_block_stop, message_delta (stop_reason, usage),
// message_stop, ping, error. System messages go to the top-level `system`; tool calls are
// `tool_use` blocks on the assistant turn and answers are `tool_result` blocks on a user turn;
// consecutive turns of one role are merged (the API wants them alternating).

const PROVIDER = ANTHROPIC.name;
const DEFAULT_MAX_TOKENS = 1024;
/** Stands in for the caller when the conversation starts with the agent (its greeting). */
export const CALL_STARTED = '(The call has connected.)';

/** `{"type":"error","error":{"type","message"}}` → error type. */
export function anthropicErrorCode(body: unknown): string | undefined {
  return safeCode((body as { error?: { type?: unknown } } | undefined)?.error?.type);
}

const ANTHROPIC_API: ProviderApi = { ...ANTHROPIC, errorCode: anthropicErrorCode };

type Block =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export function toAnthropic(messages: LlmMessage[]): { system: string | undefined; messages: { role: 'user' | 'assistant'; content: Block[] }[] } {
  const system: string[] = [];
  const out: { role: 'user' | 'assistant'; content: Block[] }[] = [];
  const add = (role: 'user' | 'assistant', blocks: Block[]) => {
    if (!blocks.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    if (m.role === 'system') system.push(m.content);
    else if (m.role === 'user') add('user', m.content.trim() ? [{ type: 'text', text: m.content }] : []);
    else if (m.role === 'tool') add('user', [{ type: 'tool_result', tool_use_id: m.toolCallId, content: m.content }]);
    else {
      const blocks: Block[] = m.content?.trim() ? [{ type: 'text', text: m.content }] : [];
      for (const c of m.toolCalls ?? []) {
        let input: unknown;
        try {
          input = JSON.parse(c.arguments || '{}');
        } catch {
          input = {};
        }
        blocks.push({ type: 'tool_use', id: c.id, name: c.name, input });
      }
      add('assistant', blocks);
    }
  }
  // The API wants a non-empty user turn first; a call opens with the agent's greeting.
  if (out[0]?.role !== 'user') out.unshift({ role: 'user', content: [{ type: 'text', text: CALL_STARTED }] });
  return { system: system.length ? system.join('\n\n') : undefined, messages: out };
}

const STOP: Record<string, LlmFinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
};

// An `error` event inside a 200 stream carries the same types as HTTP errors.
const STREAM_ERROR_STATUS: Record<string, number> = {
  overloaded_error: 529,
  api_error: 500,
  rate_limit_error: 429,
  authentication_error: 401,
  permission_error: 403,
  invalid_request_error: 400,
  request_too_large: 413,
  not_found_error: 404,
  timeout_error: 504,
};

/** One SSE event as a stream event mapped here; null for any other type. */
function readEvent(sse: SseEvent): StreamEvent | null {
  let msg: Record<string, unknown>;
  try {
    msg = parseJsonObject(sse.data);
  } catch (err) {
    throw protocolError(PROVIDER, 'an event that is not JSON', err);
  }
  // The SSE event name stands in for a `type` missing from the data.
  const type = msg.type ?? sse.event;
  if (!isMappedType(type)) return null;
  return read(StreamEvent, msg.type === type ? msg : { ...msg, type }, `a ${type} event of an unexpected shape`);
}

function read<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw protocolError(PROVIDER, what, r.error);
  return r.data;
}

export class AnthropicLlm implements LlmAdapter {
  readonly provider = 'anthropic';

  constructor(
    readonly model: string,
    private readonly opts: AdapterOptions,
  ) {}

  async *stream(req: LlmRequest): AsyncGenerator<LlmEvent, void, undefined> {
    const mapped = toAnthropic(req.messages);
    const body: Record<string, unknown> = {
      model: this.model,
      max_tokens: req.maxTokens ?? DEFAULT_MAX_TOKENS,
      messages: mapped.messages,
      stream: true,
    };
    if (mapped.system) body.system = mapped.system;
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.tools?.length) body.tools = req.tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));

    const headers = { 'content-type': 'application/json', accept: 'text/event-stream', 'anthropic-version': ANTHROPIC_VERSION };
    const call = providerCall(ANTHROPIC_API, this.opts, { path: '/v1/messages', headers, signal: req.signal });
    const http = await openHttpStream({ ...call, body: JSON.stringify(body) });

    const blocks = new Map<number, { kind: 'text' } | { kind: 'tool'; id: string; name: string; json: string } | { kind: 'other' }>();
    let inputTokens = 0;
    let outputTokens = 0;
    let stop: LlmFinishReason | null = null;
    let stopped = false;
    try {
      for await (const sse of parseSse(http.chunks)) {
        const msg = readEvent(sse);
        if (!msg) continue; // new event types are allowed by Anthropic's versioning policy
        switch (msg.type) {
          case 'ping':
            break;
          case 'message_start':
            inputTokens = msg.message?.usage?.input_tokens ?? 0;
            outputTokens = msg.message?.usage?.output_tokens ?? 0;
            break;
          case 'content_block_start': {
            const cb = msg.content_block;
            if (cb?.type === 'text') {
              const { text } = read(TextBlock, cb, 'a text block whose text is not a string');
              blocks.set(msg.index, { kind: 'text' });
              if (text) yield { type: 'text', text };
            } else if (cb?.type === 'tool_use') {
              const { id, name } = read(ToolUseBlock, cb, 'a tool_use block without id or name');
              blocks.set(msg.index, { kind: 'tool', id, name, json: '' });
            } else blocks.set(msg.index, { kind: 'other' }); // thinking etc.: not spoken
            break;
          }
          case 'content_block_delta': {
            const b = blocks.get(msg.index);
            if (!b) throw protocolError(PROVIDER, 'a delta for a block that never started');
            const d = msg.delta;
            if (d?.type === 'text_delta' && b.kind === 'text') {
              const { text } = read(TextDelta, d, 'a text_delta whose text is not a string');
              if (text) yield { type: 'text', text };
            } else if (d?.type === 'input_json_delta' && b.kind === 'tool') {
              b.json += read(JsonDelta, d, 'an input_json_delta whose partial_json is not a string').partial_json ?? '';
            }
            break;
          }
          case 'content_block_stop': {
            const b = blocks.get(msg.index);
            if (b?.kind === 'tool') {
              // An empty input streams no deltas at all: that is `{}`.
              yield { type: 'tool_call', call: { id: b.id, name: b.name, arguments: b.json || '{}' } };
            }
            blocks.delete(msg.index);
            break;
          }
          case 'message_delta':
            if (msg.delta?.stop_reason) stop = STOP[msg.delta.stop_reason] ?? 'other';
            if (typeof msg.usage?.output_tokens === 'number') outputTokens = msg.usage.output_tokens;
            if (typeof msg.usage?.input_tokens === 'number') inputTokens = msg.usage.input_tokens;
            break;
          case 'message_stop':
            stopped = true;
            break;
          case 'error': {
            const et = anthropicErrorCode(msg);
            const status = (et && STREAM_ERROR_STATUS[et]) || 500;
            throw httpError({ provider: PROVIDER, status, code: et });
          }
        }
        if (stopped) break;
      }
    } finally {
      http.cancel();
    }
    if (!stopped) throw new ProviderError('unavailable', `${PROVIDER} ended the stream early`, { provider: PROVIDER });
    yield { type: 'end', finishReason: stop ?? 'other', usage: { inputTokens, outputTokens } };
  }
}
