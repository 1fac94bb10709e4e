import { isProviderError, ProviderError } from '../providers/errors.js';
import type { SttSession } from '../providers/types.js';
import type { CallConfig } from './call-config.js';
import type { CallShell } from './call-shell.js';

// The cascade's speech recognition: one session kept open for the whole call. A recoverable
// failure (the provider dropped the stream, a 5xx) is an `error` frame and a new session, a
// few times at most; caller audio written while no session is open waits in a backlog.

/** Speech recognition sessions opened per call before giving up on a flaky provider. */
const STT_REOPENS = 4;
/** Caller chunks kept while the session opens. */
const BACKLOG_CHUNKS = 500;

export interface RecognizerEvents {
  interim(text: string): void;
  final(text: string, speechFinal: boolean): void;
  utteranceEnd(): void;
  /** The session goes on, or is reopened. */
  recoverable(err: ProviderError): void;
  /** Recognition is over for this call. */
  failed(err: unknown): void;
}

export class Recognizer {
  private session: SttSession | null = null;
  private readonly backlog: Int16Array[] = [];

  constructor(
    private readonly config: CallConfig,
    private readonly shell: Pick<CallShell, 'signal' | 'stopped'>,
    private readonly events: RecognizerEvents,
  ) {}

  /** A session is open. */
  get open(): boolean {
    return this.session !== null;
  }

  write(pcm: Int16Array): void {
    if (this.session) this.session.write(pcm);
    else if (this.backlog.length < BACKLOG_CHUNKS) this.backlog.push(pcm);
  }

  /** The caller stopped: the provider finalizes what it heard. */
  commit(): void {
    this.session?.commit();
  }

  close(): void {
    this.session?.close();
  }

  /** Opens sessions until the call stops or the provider fails for good. */
  async run(): Promise<void> {
    const stage = this.config.adapters.stt!;
    for (let attempt = 0; attempt < STT_REOPENS && !this.shell.stopped; attempt++) {
      try {
        const session = await stage.adapter.open({
          sampleRateHz: this.config.sampleRateIn === 8000 ? 8000 : 16000,
          language: stage.language ?? this.config.agent.language,
          endpointingMs: stage.endpointingMs,
          signal: this.shell.signal,
        });
        if (this.shell.stopped) return session.close();
        this.session = session;
        for (const f of this.backlog) session.write(f);
        this.backlog.length = 0;
        for await (const ev of session) {
          if (this.shell.stopped) return;
          if (ev.type === 'error') this.events.recoverable(ev.error);
          else if (ev.type === 'interim') this.events.interim(ev.text);
          else if (ev.type === 'final') this.events.final(ev.text, ev.speechFinal);
          else if (ev.type === 'utterance_end') this.events.utteranceEnd();
        }
        if (this.shell.stopped) return;
      } catch (err) {
        if (this.shell.stopped) return;
        if (!isProviderError(err) || !err.recoverable) return this.events.failed(err);
        this.events.recoverable(err);
      }
      this.session = null;
      await new Promise((r) => setTimeout(r, 500 * (attempt + 1)));
    }
    if (!this.shell.stopped) this.events.failed(new ProviderError('unavailable', 'speech recognition is unavailable', { provider: stage.adapter.provider }));
  }
}
