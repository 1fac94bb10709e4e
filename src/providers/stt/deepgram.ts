import type WebSocket from 'ws';
import { z } from 'zod';
import { abortedError, ProviderError, protocolError, timeoutError } from '../errors.js';
import type { AdapterOptions, SttAdapter, SttEvent, SttOpenOptions, SttSession } from '../types.js';
import { parseJsonObject } from '../json.js';
import { providerCall } from '../provider-call.js';
import { DEEPGRAM_API } from '../tts/deepgram.js';
import { AsyncQueue } from '../realtime/queue.js';
import { closeError, connectWs } from '../realtime/ws.js';

// Deepgram live transcription: wss://api.deepgram.com/v1/listen?model=…&encoding=linear16
// &sample_rate=…&channels=1&interim_results=true&endpointing=<ms>&utterance_end_ms=<ms>,
// `Authorization: Token <key>`. Audio goes up as binary frames; control messages are JSON
// text: {"type":"KeepAlive"} (Deepgram closes a stream that gets nothing for 10 s),
// {"type":"Finalize"} (flush now) and {"type":"CloseStream"} (finish: the server sends the
// last Results and Metadata, then closes). Down come Results (is_final, speech_final),
// UtteranceEnd, SpeechStarted and Metadata.

const PROVIDER = DEEPGRAM_API.name;
export const KEEPALIVE_MS = 4000;
/** Deepgram's minimum for utterance_end_ms. */
const MIN_UTTERANCE_END_MS = 1000;

export interface DeepgramSttOptions extends AdapterOptions {
  model: string;
  /** Extra query parameters (e.g. smart_format). */
  extraQuery?: Record<string, string>;
  keepAliveMs?: number;
}

export class DeepgramStt implements SttAdapter {
  readonly provider = 'deepgram';
  readonly streaming = true;

  constructor(private readonly opts: DeepgramSttOptions) {}

  async open(o: SttOpenOptions): Promise<SttSession> {
    const endpointingMs = o.endpointingMs ?? 500;
    const q = new URLSearchParams({
      model: this.opts.model,
      encoding: 'linear16',
      sample_rate: String(o.sampleRateHz),
      channels: '1',
      interim_results: 'true',
      endpointing: String(endpointingMs),
      utterance_end_ms: String(Math.max(MIN_UTTERANCE_END_MS, endpointingMs * 2)),
      punctuate: 'true',
      ...(o.language ? { language: o.language } : {}),
      ...(this.opts.extraQuery ?? {}),
    });
    const call = providerCall(DEEPGRAM_API, this.opts, { path: '/v1/listen', query: q, signal: o.signal, websocket: true });
    const ws = await connectWs(call);
    return new DeepgramSession(ws, o.signal, call.timeouts.idleMs, this.opts.keepAliveMs ?? KEEPALIVE_MS);
  }
}

// The fields of a Results message read here; the others (words, metadata, …) are not parsed.
const Results = z.object({
  is_final: z.boolean().nullish(),
  speech_final: z.boolean().nullish(),
  channel: z.object({ alternatives: z.array(z.object({ transcript: z.string().nullish() })).nullish() }).nullish(),
});

class DeepgramSession implements SttSession {
  private readonly queue: AsyncQueue<SttEvent>;
  private lastSentAt = Date.now();
  /** When audio went up with no answer since (for the idle timeout). */
  private unansweredSince: number | null = null;
  private finishing = false;
  private done = false;
  private readonly ticker: NodeJS.Timeout;
  private finished: Promise<void>;
  private resolveFinished!: () => void;

  constructor(
    private readonly ws: WebSocket,
    private readonly signal: AbortSignal,
    private readonly idleMs: number,
    private readonly keepAliveMs: number,
  ) {
    this.queue = new AsyncQueue(() => this.close());
    this.finished = new Promise((r) => (this.resolveFinished = r));
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('close', (code, reason) => {
      if (this.done || (this.finishing && code === 1000)) this.stop(null);
      else this.stop(closeError(PROVIDER, code, reason.toString()));
    });
    ws.on('error', () => {});
    signal.addEventListener('abort', this.onAbort, { once: true });
    this.ticker = setInterval(() => this.tick(), Math.min(this.keepAliveMs, this.idleMs) / 4);
    ws.resume();
  }

  private onAbort = () => this.stop(abortedError(PROVIDER));

  private tick(): void {
    const now = Date.now();
    if (this.unansweredSince !== null && now - this.unansweredSince > this.idleMs) {
      return this.stop(timeoutError(PROVIDER, 'idle', this.idleMs));
    }
    if (!this.finishing && now - this.lastSentAt >= this.keepAliveMs) this.sendJson({ type: 'KeepAlive' });
  }

  private sendJson(msg: Record<string, unknown>): void {
    if (this.done || this.ws.readyState !== this.ws.OPEN) return;
    this.lastSentAt = Date.now();
    this.ws.send(JSON.stringify(msg));
  }

  write(pcm: Int16Array): void {
    if (this.done || this.finishing || this.ws.readyState !== this.ws.OPEN || pcm.length === 0) return;
    this.lastSentAt = Date.now();
    this.unansweredSince ??= this.lastSentAt;
    // Copied: a queued socket write keeps its buffer, and the engine reuses its frames.
    this.ws.send(Buffer.from(new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)));
  }

  commit(): void {
    if (!this.finishing) this.sendJson({ type: 'Finalize' });
  }

  finish(): Promise<void> {
    if (!this.finishing && !this.done) {
      this.finishing = true;
      this.sendJson({ type: 'CloseStream' });
      // The server closes after the last results; do not wait forever for it.
      const t = setTimeout(() => this.stop(timeoutError(PROVIDER, 'idle', this.idleMs)), this.idleMs);
      void this.finished.then(() => clearTimeout(t));
    }
    return this.finished;
  }

  close(): void {
    this.stop(null);
  }

  private stop(err: ProviderError | null): void {
    if (this.done) {
      this.resolveFinished();
      return;
    }
    this.done = true;
    clearInterval(this.ticker);
    this.signal.removeEventListener('abort', this.onAbort);
    if (err) this.queue.fail(err);
    else this.queue.end();
    if (this.ws.readyState === this.ws.OPEN || this.ws.readyState === this.ws.CONNECTING) this.ws.terminate();
    this.resolveFinished();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.done) return;
    this.unansweredSince = null;
    let msg: Record<string, unknown>;
    try {
      if (isBinary) throw new Error('binary');
      msg = parseJsonObject(data.toString('utf8'));
    } catch (err) {
      return this.stop(protocolError(PROVIDER, 'a frame that is not JSON', err));
    }
    switch (msg.type) {
      case 'Results': {
        const parsed = Results.safeParse(msg);
        if (!parsed.success) return this.stop(protocolError(PROVIDER, 'a Results message of an unexpected shape', parsed.error));
        const r = parsed.data;
        const text = (r.channel?.alternatives?.[0]?.transcript ?? '').trim();
        if (r.is_final) {
          if (text || r.speech_final) this.queue.push({ type: 'final', text, speechFinal: r.speech_final === true });
        } else if (text) this.queue.push({ type: 'interim', text });
        break;
      }
      case 'UtteranceEnd':
        this.queue.push({ type: 'utterance_end' });
        break;
      case 'Error':
        return this.stop(new ProviderError('unavailable', `${PROVIDER} reported a stream error`, { provider: PROVIDER, code: typeof msg.variant === 'string' ? msg.variant : undefined }));
      default:
        break; // Metadata, SpeechStarted and future types
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.queue[Symbol.asyncIterator]();
  }
}
