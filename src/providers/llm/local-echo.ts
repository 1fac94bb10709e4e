import { abortedError } from '../errors.js';
import type { LlmAdapter, LlmEvent, LlmRequest } from '../types.js';

// The `local` provider's `echo` model: answers with what the caller last said, a word at a
// time like a real stream. For tests and the offline demo; needs no network and no key.

export class LocalEchoLlm implements LlmAdapter {
  readonly provider = 'local';
  readonly model = 'echo';

  async *stream(req: LlmRequest): AsyncGenerator<LlmEvent, void, undefined> {
    const lastUser = [...req.messages].reverse().find((m) => m.role === 'user');
    const said = lastUser?.content.trim() ?? '';
    const answer = said ? `You said: ${said}` : 'I did not hear anything.';
    const words = answer.split(/(?<=\s)/);
    let out = 0;
    for (const w of words) {
      if (req.signal.aborted) throw abortedError('local');
      if (req.maxTokens !== undefined && out >= req.maxTokens) {
        yield { type: 'end', finishReason: 'length', usage: { inputTokens: said.split(/\s+/).length, outputTokens: out } };
        return;
      }
      await new Promise<void>((r) => setImmediate(r));
      yield { type: 'text', text: w };
      out++;
    }
    yield { type: 'end', finishReason: 'stop', usage: { inputTokens: said ? said.split(/\s+/).length : 0, outputTokens: out } };
  }
}
