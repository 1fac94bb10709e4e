import { SentenceSplitter } from '../providers/llm/sentences.js';
import type { StageAdapters } from '../providers/registry.js';
import type { LlmMessage, LlmTool, LlmToolCall } from '../providers/types.js';
import type { AgentTurn } from './agent-audio.js';
import type { TurnSpeaker } from './speaker.js';
import { END_CALL } from './tools.js';

// One answer of the cascade to a caller turn: the model's rounds (tool calls between them)
// streamed sentence by sentence into the speaker, and its messages into the history.

/** Model rounds per caller turn (tool calls then answers). */
const MAX_TOOL_ROUNDS = 4;

export interface AnswerEnv {
  llm: NonNullable<StageAdapters['llm']>;
  tools: LlmTool[];
  /** Runs a tool call other than end_call; send_dtmf's tones go to `play`. */
  runToolCall(call: LlmToolCall, signal: AbortSignal, play: (tones: Int16Array[]) => void): Promise<string>;
  /** The model failed (not by our abort). */
  failed(err: unknown): void;
  /** The answer is still the call's current one (else its speaker is left alone). */
  isCurrent(answer: Answer): boolean;
}

export class Answer {
  readonly controller = new AbortController();
  /** Index of this answer's assistant message in the history, once written. */
  historyIndex: number | null = null;
  /** The model called end_call: the call ends after this answer's last frame. */
  endCall = false;

  constructor(readonly speaker: TurnSpeaker) {}

  get turn(): AgentTurn {
    return this.speaker.turn;
  }

  /** Stops generation and synthesis. */
  cancel(): void {
    this.controller.abort();
    this.speaker.cancel();
  }

  /** Streams the model's rounds into the speaker, and its messages into `history`. */
  async generate(history: LlmMessage[], env: AnswerEnv): Promise<void> {
    const signal = this.controller.signal;
    try {
      for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
        const splitter = new SentenceSplitter({ minChars: 2 });
        let text = '';
        const calls: LlmToolCall[] = [];
        for await (const ev of env.llm.adapter.stream({ messages: history, tools: env.tools, temperature: env.llm.temperature, maxTokens: env.llm.maxTokens, signal })) {
          if (signal.aborted) return;
          if (ev.type === 'text') {
            text += ev.text;
            for (const s of splitter.push(ev.text)) this.speaker.say(s);
          } else if (ev.type === 'tool_call') calls.push(ev.call);
        }
        const rest = splitter.flush();
        if (rest) this.speaker.say(rest);
        if (signal.aborted) return;
        this.historyIndex ??= history.length;
        history.push({ role: 'assistant', content: text || null, toolCalls: calls.length ? calls : undefined });
        if (calls.length === 0) break;
        for (const call of calls) {
          const output = await this.runToolCall(call, env);
          if (signal.aborted) return;
          history.push({ role: 'tool', toolCallId: call.id, content: output });
        }
        if (this.endCall) break;
      }
    } catch (err) {
      if (!signal.aborted) env.failed(err);
    } finally {
      if (env.isCurrent(this)) this.speaker.end();
    }
  }

  /** Barge-in: the answer's words in `history` become what the caller heard; tool calls and results stay. */
  keepHeard(history: LlmMessage[], heard: string): void {
    if (this.historyIndex === null) {
      history.push({ role: 'assistant', content: heard || null });
      return;
    }
    const msg = history[this.historyIndex];
    if (msg.role === 'assistant') history[this.historyIndex] = { ...msg, content: heard || null };
    for (let i = history.length - 1; i > this.historyIndex; i--) {
      const m = history[i];
      if (m.role === 'assistant' && !m.toolCalls?.length) history.splice(i, 1);
    }
  }

  /** Dropped unheard: the answer's messages leave `history`. */
  forget(history: LlmMessage[]): void {
    if (this.historyIndex !== null) history.splice(this.historyIndex);
  }

  private async runToolCall(call: LlmToolCall, env: AnswerEnv): Promise<string> {
    if (call.name === END_CALL) {
      this.endCall = true;
      return JSON.stringify({ result: 'the call will end after your last words' });
    }
    return env.runToolCall(call, this.controller.signal, (tones) => {
      for (const t of tones) this.speaker.play(t);
    });
  }
}
