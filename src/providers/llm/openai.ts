import { protocolError, ProviderError, safeCode } from '../errors.js';
import type { AdapterOptions, LlmAdapter, LlmEvent, LlmFinishReason, LlmMessage, LlmRequest, LlmTool, LlmToolCall } from '../types.js';
import { OPENAI } from '../hosts.js';
import { providerCall, type ProviderApi } from '../provider-call.js';
import { openHttpStream } from './http.js';
import { parseSse } from './sse.js';

// OpenAI chat completions (POST /v1/chat/completions, stream: true). The answer is SSE:
// `data: {chat.completion.chunk}` lines, then `data: [DONE]`. Text arrives in
// choices[0].delta.content; tool calls arrive in pieces in delta.tool_calls[] keyed by
// `index` (id and name in the first piece, `function.arguments` spread over the rest), so
// they are assembled here and emitted whole. With stream_options.include_usage the last
// chunk has `choices: []` and `usage`. Also works against compatible servers via baseUrl.

const PROVIDER = OPENAI.name;

/** `{"error":{"message","type","param","code"}}` → code (or type). Never the message. */
export function openAiErrorCode(body: unknown): string | undefined {
  const e = (body as { error?: { code?: unknown; type?: unknown } } | undefined)?.error;
  return safeCode(e?.code) ?? safeCode(e?.type);
}

/** OpenAI's API (or a compatible server's) as the OpenAI adapters call it. */
export const OPENAI_API: ProviderApi = { ...OPENAI, errorCode: openAiErrorCode };

export function toOpenAiMessages(messages: LlmMessage[]): unknown[] {
  return messages.map((m) => {
    switch (m.role) {
      case 'assistant':
        return {
          role: 'assistant',
          content: m.content,
          ...(m.toolCalls?.length
            ? { tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) }
            : {}),
        };
      case 'tool':
        return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
      default:
        return { role: m.role, content: m.content };
    }
  });
}

export const toOpenAiTools = (tools: LlmTool[]) =>
  tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }));

const FINISH: Record<string, LlmFinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

interface Chunk {
  choices?: { index?: number; delta?: { content?: string | null; tool_calls?: ToolDelta[] }; finish_reason?: string | null }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null;
  error?: unknown;
}
interface ToolDelta {
  index: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

export class OpenAiLlm implements LlmAdapter {
  readonly provider = 'openai';

  constructor(
    readonly model: string,
    private readonly opts: AdapterOptions,
  ) {}

  private isOpenAiHost(): boolean {
    if (!this.opts.baseUrl) return true;
    try {
      const host = new URL(this.opts.baseUrl).hostname;
      return host === 'openai.com' || host.endsWith('.openai.com');
    } catch {
      return false;
    }
  }

  async *stream(req: LlmRequest): AsyncGenerator<LlmEvent, void, undefined> {
    const body: Record<string, unknown> = {
      model: this.model,
      messages: toOpenAiMessages(req.messages),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (req.tools?.length) body.tools = toOpenAiTools(req.tools);
    if (req.temperature !== undefined) body.temperature = req.temperature;
    if (req.maxTokens !== undefined) {
      // OpenAI itself wants max_completion_tokens (max_tokens is refused by reasoning models);
      // compatible servers behind a base_url commonly only know max_tokens.
      if (this.isOpenAiHost()) body.max_completion_tokens = req.maxTokens;
      else body.max_tokens = req.maxTokens;
    }

    const headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
    const call = providerCall(OPENAI_API, this.opts, { path: '/v1/chat/completions', headers, signal: req.signal });
    const http = await openHttpStream({ ...call, body: JSON.stringify(body) });

    const calls = new Map<number, { id: string; name: string; args: string }>();
    let finish: LlmFinishReason | null = null;
    let usage: { inputTokens: number; outputTokens: number } | null = null;
    let done = false;
    const flushCalls = function* (): Generator<LlmEvent> {
      for (const [, c] of [...calls].sort((a, b) => a[0] - b[0])) {
        if (!c.id || !c.name) throw protocolError(PROVIDER, 'a tool call without id or name');
        const call: LlmToolCall = { id: c.id, name: c.name, arguments: c.args || '{}' };
        yield { type: 'tool_call', call };
      }
      calls.clear();
    };

    try {
      for await (const ev of parseSse(http.chunks)) {
        if (ev.data === '[DONE]') {
          done = true;
          break;
        }
        let chunk: Chunk;
        try {
          chunk = JSON.parse(ev.data) as Chunk;
        } catch (err) {
          throw protocolError(PROVIDER, 'a stream chunk that is not JSON', err);
        }
        if (chunk.error) {
          // An error after the 200 (e.g. server_error mid-generation): recoverable, not retried.
          throw new ProviderError('unavailable', `${PROVIDER} failed mid-answer`, { provider: PROVIDER, code: openAiErrorCode(chunk) });
        }
        if (chunk.usage) usage = { inputTokens: chunk.usage.prompt_tokens ?? 0, outputTokens: chunk.usage.completion_tokens ?? 0 };
        const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
        if (!choice) continue;
        const delta = choice.delta ?? {};
        if (typeof delta.content === 'string' && delta.content) yield { type: 'text', text: delta.content };
        for (const td of delta.tool_calls ?? []) {
          if (typeof td.index !== 'number') throw protocolError(PROVIDER, 'a tool call delta without an index');
          let c = calls.get(td.index);
          if (!c) calls.set(td.index, (c = { id: '', name: '', args: '' }));
          if (td.id) c.id = td.id;
          if (td.function?.name) c.name += td.function.name;
          if (td.function?.arguments) c.args += td.function.arguments;
        }
        if (choice.finish_reason) {
          finish = FINISH[choice.finish_reason] ?? 'other';
          yield* flushCalls();
        }
      }
    } finally {
      // Breaking out early (barge-in) lands here too; the chunks generator aborts the socket.
      http.cancel();
    }
    if (!done && finish === null) throw new ProviderError('unavailable', `${PROVIDER} ended the stream early`, { provider: PROVIDER });
    yield* flushCalls();
    yield { type: 'end', finishReason: finish ?? 'other', usage };
  }
}
