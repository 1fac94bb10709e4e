import type WebSocket from 'ws';
import { abortedError, ProviderError, protocolError, safeCode, timeoutError } from '../errors.js';
import type { AdapterOptions, StreamingTtsAdapter, TtsRequest, TtsStream } from '../types.js';
import { ELEVENLABS } from '../hosts.js';
import { parseJsonObject } from '../json.js';
import { providerCall, type ProviderApi } from '../provider-call.js';
import { AsyncQueue } from '../realtime/queue.js';
import { closeError, connectWs } from '../realtime/ws.js';
import { PcmAssembler } from './pcm.js';

// ElevenLabs input streaming: wss://api.elevenlabs.io/v1/text-to-speech/{voice_id}/stream-input
// ?model_id=…&output_format=pcm_<rate>. The first message opens the stream
// ({"text":" ", voice_settings, xi_api_key}); then text chunks ({"text":"… "}), a flush at
// sentence ends ({"text":" ","flush":true}); {"text":""} ends it. The server answers
// {"audio": base64 PCM, "isFinal": null, alignment…} and finally {"isFinal": true}, then closes.
// The key also travels in the `xi-api-key` handshake header, so a bad key fails the upgrade.

const PROVIDER = ELEVENLABS.name;
const RATES_HZ = [8000, 16000, 22050, 24000, 44100, 48000];
/** The server closes an idle socket after 20 s by default; a single space keeps it open. */
const KEEPALIVE_MS = 15000;

export function elevenLabsErrorCode(body: unknown): string | undefined {
  const b = body as { detail?: { status?: unknown; code?: unknown }; error?: unknown } | undefined;
  return safeCode(b?.detail?.status) ?? safeCode(b?.detail?.code) ?? safeCode(b?.error);
}

const ELEVENLABS_API: ProviderApi = { ...ELEVENLABS, errorCode: elevenLabsErrorCode };

const AUTH_CODES = /invalid_api_key|auth|unauthori[sz]ed|permission|missing_permissions/i;
const LIMIT_CODES = /quota|rate_limit|too_many|concurren|limit_exceeded/i;

function streamError(msg: Record<string, unknown>): ProviderError {
  const e = msg.error;
  const raw = typeof e === 'string' ? e : (e as { status?: unknown; code?: unknown } | undefined)?.status ?? (e as { code?: unknown })?.code;
  const code = safeCode(typeof raw === 'number' ? String(raw) : raw);
  const kind = code && AUTH_CODES.test(code) ? 'auth' : code && LIMIT_CODES.test(code) ? 'rate_limit' : 'bad_request';
  return new ProviderError(kind, `${PROVIDER} reported an error${code ? ` (${code})` : ''}`, { provider: PROVIDER, code });
}

export class ElevenLabsTts implements StreamingTtsAdapter {
  readonly provider = 'elevenlabs';

  constructor(private readonly opts: AdapterOptions) {}

  outputSampleRateHz(requestedHz: number): number {
    return RATES_HZ.includes(requestedHz) ? requestedHz : 24000;
  }

  async open(req: Omit<TtsRequest, 'text'>): Promise<TtsStream> {
    const rateHz = this.outputSampleRateHz(req.sampleRateHz);
    const path = `/v1/text-to-speech/${encodeURIComponent(req.voice)}/stream-input`;
    const query = new URLSearchParams({ model_id: req.model, output_format: `pcm_${rateHz}` });
    const call = providerCall(ELEVENLABS_API, this.opts, { path, query, signal: req.signal, websocket: true });
    const ws = await connectWs(call);
    const init: Record<string, unknown> = { text: ' ' };
    if (req.speed !== undefined && req.speed !== 1) init.voice_settings = { speed: Math.min(1.2, Math.max(0.7, req.speed)) };
    if (this.opts.apiKey) init.xi_api_key = this.opts.apiKey;
    ws.send(JSON.stringify(init));
    return new ElevenLabsStream(ws, rateHz, call.timeouts, req.signal);
  }

  async *synthesize(req: TtsRequest): AsyncGenerator<Int16Array, void, undefined> {
    const stream = await this.open(req);
    try {
      stream.sendText(req.text);
      stream.end();
      yield* stream;
    } finally {
      stream.close();
    }
  }
}

class ElevenLabsStream implements TtsStream {
  private readonly queue: AsyncQueue<Int16Array>;
  private readonly asm = new PcmAssembler();
  private ended = false;
  private closed = false;
  /** Audio is owed: a flush or the end was sent and nothing came since. */
  private waitTimer: NodeJS.Timeout | undefined;
  private keepalive: NodeJS.Timeout;
  private lastSentAt = Date.now();
  /** Text went up since the last audio came down (so a flush must produce some). */
  private textSinceAudio = false;

  constructor(
    private readonly ws: WebSocket,
    readonly sampleRateHz: number,
    private readonly timeouts: { firstByteMs: number; idleMs: number },
    private readonly signal: AbortSignal,
  ) {
    this.queue = new AsyncQueue(() => this.close());
    ws.on('message', (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on('close', (code, reason) => {
      this.stopTimers();
      if (this.closed || (this.ended && code === 1000)) return this.queue.end();
      this.queue.fail(closeError(PROVIDER, code, reason.toString()));
    });
    ws.on('error', () => {}); // the close that follows reports it
    signal.addEventListener('abort', this.onAbort, { once: true });
    this.keepalive = setInterval(() => {
      if (!this.ended && Date.now() - this.lastSentAt >= KEEPALIVE_MS) this.send({ text: ' ' });
    }, KEEPALIVE_MS / 3);
    ws.resume();
  }

  private onAbort = () => {
    this.queue.fail(abortedError(PROVIDER));
    this.shutdown();
  };

  private send(msg: Record<string, unknown>): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.lastSentAt = Date.now();
    this.ws.send(JSON.stringify(msg));
  }

  sendText(chunk: string): void {
    if (this.ended || !chunk) return;
    this.textSinceAudio = true;
    this.send({ text: chunk });
  }

  flush(): void {
    if (this.ended) return;
    this.send({ text: ' ', flush: true });
    // Audio that already came for this text may have been all of it: only wait when none did.
    if (this.textSinceAudio) this.expectAudio(this.timeouts.firstByteMs);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.send({ text: '' });
    this.expectAudio(this.timeouts.firstByteMs);
  }

  close(): void {
    if (this.closed) return;
    this.queue.end();
    this.shutdown();
  }

  private shutdown(): void {
    this.closed = true;
    this.stopTimers();
    this.signal.removeEventListener('abort', this.onAbort);
    this.ws.terminate(); // barge-in: stop at once, do not wait for a close handshake
  }

  private stopTimers(): void {
    clearTimeout(this.waitTimer);
    this.waitTimer = undefined;
    clearInterval(this.keepalive);
  }

  private expectAudio(ms: number): void {
    clearTimeout(this.waitTimer);
    this.waitTimer = setTimeout(() => {
      this.queue.fail(timeoutError(PROVIDER, ms === this.timeouts.idleMs ? 'idle' : 'first byte', ms));
      this.shutdown();
    }, ms);
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    if (this.closed) return;
    let msg: Record<string, unknown>;
    try {
      if (isBinary) throw new Error('binary frame');
      msg = parseJsonObject(data.toString('utf8'));
    } catch (err) {
      this.queue.fail(protocolError(PROVIDER, 'a frame that is not JSON', err));
      return this.shutdown();
    }
    if (msg.error !== undefined && msg.audio === undefined) {
      this.queue.fail(streamError(msg));
      return this.shutdown();
    }
    if (typeof msg.audio === 'string' && msg.audio) {
      this.textSinceAudio = false;
      const pcm = this.asm.push(Buffer.from(msg.audio, 'base64'));
      if (pcm) this.queue.push(pcm);
      // After the end, the rest must keep coming; after a flush, one chunk settles it.
      if (this.ended) this.expectAudio(this.timeouts.idleMs);
      else clearTimeout(this.waitTimer);
    }
    if (msg.isFinal === true) {
      this.closed = true;
      this.stopTimers();
      this.signal.removeEventListener('abort', this.onAbort);
      this.queue.end();
      this.ws.close(1000);
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Int16Array> {
    return this.queue[Symbol.asyncIterator]();
  }
}
