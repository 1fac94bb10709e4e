import type { LlmMessage } from '../providers/types.js';
import { AgentTurn, type TurnKind } from './agent-audio.js';
import type { CallShell } from './call-shell.js';
import type { PhraseBook } from './phrase-book.js';

// What the cascade says on its own (greeting, reminder, goodbye, filler, acknowledgement): a
// fixed phrase from the PhraseBook, queued whole as a turn of its own. The greeting, reminder
// and goodbye are part of the conversation the model sees, and the caller may cut them like an
// answer: the history then keeps only what they heard.

type AssistantMessage = Extract<LlmMessage, { role: 'assistant' }>;

/** Phrases that belong to the conversation (the history) and that a barge-in may cut. */
const CONVERSATION_KINDS = new Set<TurnKind>(['greeting', 'reminder', 'goodbye']);

export class PhraseTurns {
  /** The greeting, reminder or goodbye last spoken, until its last frame is sent or it is cut. */
  private current: { turn: AgentTurn; message: AssistantMessage } | null = null;

  constructor(
    private readonly shell: CallShell,
    private readonly book: PhraseBook,
    private readonly history: LlmMessage[],
  ) {}

  /** Queues `text` as a turn of `kind` once synthesized (the goodbye even over max_chars_per_min). */
  speak(kind: TurnKind, text: string): AgentTurn {
    const turn = new AgentTurn(kind);
    const { audio } = this.shell;
    void this.book.get(text).then((pcm) => {
      if (this.shell.stopped || turn.dropped) return;
      if (!pcm) {
        audio.finish(turn);
        if (kind === 'goodbye') this.shell.finish(this.shell.goodbyeReason);
        return;
      }
      if (!this.shell.takeChars(text.length) && kind !== 'goodbye') return this.shell.overBudget(false);
      audio.append(turn, pcm, text);
      audio.finish(turn);
      this.shell.kick();
    });
    if (CONVERSATION_KINDS.has(kind)) {
      const message: AssistantMessage = { role: 'assistant', content: text };
      this.history.push(message);
      this.current = { turn, message };
    }
    return turn;
  }

  /** The greeting, reminder or goodbye being heard, while a barge-in may still cut it. */
  get playing(): AgentTurn | null {
    const turn = this.current?.turn;
    return turn && turn.firstFrameAt !== null && !turn.dropped && !turn.reported ? turn : null;
  }

  /** The greeting, reminder or goodbye not fully sent yet (the hang-up records what was heard of it). */
  get unfinished(): AgentTurn | null {
    return this.current?.turn ?? null;
  }

  /** `turn`'s last frame went out. */
  sent(turn: AgentTurn): void {
    if (turn === this.current?.turn) this.current = null;
  }

  /**
   * The caller cut the phrase playing, having heard `heard` of it: its audio is dropped and the
   * history keeps only the heard words. Returns the cut turn (null when none was playing).
   */
  cut(heard: string): AgentTurn | null {
    const turn = this.playing;
    if (!turn || !this.current) return null;
    const { message } = this.current;
    this.current = null;
    turn.interrupted = true;
    this.shell.audio.dropAll();
    this.shell.clearPlayback();
    const at = this.history.indexOf(message);
    if (heard) message.content = heard;
    else if (at >= 0) this.history.splice(at, 1);
    return turn;
  }
}
