// What a call reports to the page.

export type Role = 'user' | 'assistant';

export interface CallEvents {
  /** A finished utterance (the assistant's carries only what was played). */
  transcript: { role: Role; text: string };
  /** The agent finished a turn (the greeting included). */
  turn: Record<string, never>;
  /** The caller barged in; playback was flushed. `heard` is what the caller heard of the turn. */
  interrupted: { heard?: string; droppedMs: number };
  /** Microphone and speaker RMS levels, 0–1. */
  level: { input: number; output: number };
  /** A recoverable problem reported by the server. */
  error: { message: string };
  /** The call is over: the server's end reason (if it sent one) and the socket's close code. */
  end: { reason: string | null; code: number };
}

export class Emitter {
  private readonly listeners = new Map<keyof CallEvents, Set<(v: never) => void>>();

  on<K extends keyof CallEvents>(event: K, fn: (value: CallEvents[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  protected emit<K extends keyof CallEvents>(event: K, value: CallEvents[K]): void {
    for (const fn of [...(this.listeners.get(event) ?? [])]) (fn as (v: CallEvents[K]) => void)(value);
  }
}
