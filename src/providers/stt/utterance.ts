import { abortedError, isProviderError, ProviderError } from '../errors.js';
import type { SttEvent, SttSession } from '../types.js';
import { AsyncQueue } from '../realtime/queue.js';
import { concatPcm } from '../tts/pcm.js';

// A session for providers that transcribe whole utterances (OpenAI transcriptions,
// PocketSphinx): the engine's VAD decides where an utterance ends and calls commit(); the
// audio written since the last commit is transcribed, one utterance at a time and in order,
// and comes back as one `final` with speechFinal. A recoverable failure on one utterance is
// an `error` event and the session goes on; anything else ends it.

export type Transcribe = (pcm: Int16Array, signal: AbortSignal) => Promise<string>;

export class UtteranceSession implements SttSession {
  private readonly queue: AsyncQueue<SttEvent>;
  private parts: Int16Array[] = [];
  private samples = 0;
  private chain: Promise<void> = Promise.resolve();
  private readonly controller = new AbortController();
  private finishing = false;
  private done = false;

  constructor(
    private readonly provider: string,
    private readonly sampleRateHz: number,
    private readonly transcribe: Transcribe,
    private readonly signal: AbortSignal,
    /** Shorter utterances are dropped (a click is not speech). */
    private readonly minMs = 100,
    /** Longest utterance kept; older audio is dropped beyond it. */
    private readonly maxMs = 60_000,
  ) {
    this.queue = new AsyncQueue(() => this.close());
    signal.addEventListener('abort', this.onAbort, { once: true });
  }

  private onAbort = () => this.stop(abortedError(this.provider));

  write(pcm: Int16Array): void {
    if (this.done || this.finishing || pcm.length === 0) return;
    this.parts.push(pcm.slice());
    this.samples += pcm.length;
    const max = (this.sampleRateHz * this.maxMs) / 1000;
    while (this.samples - this.parts[0].length > max) this.samples -= this.parts.shift()!.length;
  }

  commit(): void {
    if (this.done) return;
    const pcm = concatPcm(this.parts);
    this.parts = [];
    this.samples = 0;
    if (pcm.length < (this.sampleRateHz * this.minMs) / 1000) return;
    this.chain = this.chain.then(() => this.run(pcm));
  }

  private async run(pcm: Int16Array): Promise<void> {
    if (this.done) return;
    try {
      const text = await this.transcribe(pcm, this.controller.signal);
      if (!this.done) this.queue.push({ type: 'final', text: text.trim(), speechFinal: true });
    } catch (err) {
      if (this.done) return;
      const e = isProviderError(err) ? err : new ProviderError('protocol', `${this.provider} failed`, { provider: this.provider, cause: err });
      if (e.recoverable) this.queue.push({ type: 'error', error: e });
      else this.stop(e);
    }
  }

  async finish(): Promise<void> {
    if (this.done || this.finishing) return this.chain;
    this.commit();
    this.finishing = true;
    await this.chain;
    this.stop(null);
  }

  close(): void {
    this.stop(null);
  }

  private stop(err: ProviderError | null): void {
    if (this.done) return;
    this.done = true;
    this.signal.removeEventListener('abort', this.onAbort);
    this.controller.abort();
    if (err) this.queue.fail(err);
    else this.queue.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.queue[Symbol.asyncIterator]();
  }
}
