import { fetch, type Response } from 'undici';
import {
  abortedError,
  connectError,
  httpError,
  parseRetryAfter,
  ProviderError,
  protocolError,
  timeoutError,
} from '../errors.js';
import type { Timeouts } from '../types.js';
import { blockedError, checkDestination, httpDispatcher, isBlockedConnect } from '../net.js';

// HTTP transport shared by every HTTP adapter (LLM, TTS, batch STT): three timeouts (connect,
// first byte, idle between chunks), prompt cancellation (aborting closes the socket), retries
// only of connect failures (nothing reached the provider), and error bodies → ProviderError.

export interface HttpCall {
  provider: string;
  url: string;
  method?: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Must be replayable (string / Buffer / FormData) since a connect failure is retried. */
  body?: string | Uint8Array | FormData;
  timeouts: Timeouts;
  retries: number;
  signal: AbortSignal;
  /** The short machine code in the provider's error body. */
  errorCode: (body: unknown) => string | undefined;
  /** Private and loopback destinations allowed (ALLOW_PRIVATE_URLS); default true. */
  allowPrivate?: boolean;
}

export interface HttpStream {
  status: number;
  headers: Response['headers'];
  /** Body chunks; the first must come within firstByteMs, the next within idleMs of each other. */
  chunks: AsyncGenerator<Uint8Array, void, undefined>;
  /** Stops reading and closes the connection unless the body was read to the end. Idempotent. */
  cancel(): void;
}

const RETRYABLE_CONNECT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const MAX_ERROR_BODY = 64 * 1024;

/** base_url + path; a base_url ending in /v1 does not get a second /v1. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') && path.startsWith('/v1/') ? trimmed + path.slice(3) : trimmed + path;
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

function causeCode(err: unknown): string | undefined {
  const e = err as { code?: string; cause?: { code?: string; cause?: { code?: string } } };
  return e?.cause?.code ?? e?.cause?.cause?.code ?? e?.code;
}

/** undici types a body as ReadableStream<any>; a fetch body is bytes. */
function bodyStream(res: Response): ReadableStream<Uint8Array> | null {
  return res.body as ReadableStream<Uint8Array> | null;
}

/**
 * The error body as JSON, or undefined. Read up to and including the chunk that passes
 * MAX_ERROR_BODY (a body that ends there still parses); leaving the loop cancels the rest.
 */
async function readErrorBody(res: Response): Promise<unknown> {
  const parts: Uint8Array[] = [];
  let size = 0;
  try {
    for await (const chunk of bodyStream(res) ?? []) {
      parts.push(chunk);
      size += chunk.byteLength;
      if (size > MAX_ERROR_BODY) break;
    }
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Sends the request and returns once a 2xx status arrives; throws ProviderError otherwise. */
export async function openHttpStream(call: HttpCall): Promise<HttpStream> {
  const { provider, timeouts, signal } = call;
  const allowPrivate = call.allowPrivate !== false;
  checkDestination(provider, call.url, allowPrivate);
  for (let attempt = 0; ; attempt++) {
    if (signal.aborted) throw abortedError(provider);
    const controller = new AbortController();
    let timedOut: 'first byte' | 'idle' | null = null;
    let timer: NodeJS.Timeout | undefined;
    const arm = (phase: 'first byte' | 'idle', ms: number) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = phase;
        controller.abort();
      }, ms);
    };
    const onAbort = () => controller.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    };
    const failure = (err: unknown, ms: number): ProviderError => {
      if (err instanceof ProviderError) return err;
      if (signal.aborted) return abortedError(provider);
      if (timedOut) return timeoutError(provider, timedOut, ms);
      if (causeCode(err) === 'UND_ERR_CONNECT_TIMEOUT') return timeoutError(provider, 'connect', timeouts.connectMs);
      if (isBlockedConnect(err)) return blockedError(provider, new URL(call.url).host, err);
      return connectError(provider, err);
    };

    arm('first byte', timeouts.connectMs + timeouts.firstByteMs);
    let res: Response;
    try {
      res = await fetch(call.url, {
        method: call.method ?? 'POST',
        headers: { 'user-agent': 'voice-agent-service/1', ...call.headers },
        body: call.body as never,
        redirect: 'error',
        signal: controller.signal,
        dispatcher: httpDispatcher(timeouts.connectMs, allowPrivate),
      });
    } catch (err) {
      cleanup();
      const code = causeCode(err);
      if (!signal.aborted && !timedOut && attempt < call.retries && code && RETRYABLE_CONNECT.has(code)) {
        await sleep(100 * 2 ** attempt, signal);
        continue;
      }
      throw failure(err, timeouts.connectMs + timeouts.firstByteMs);
    }

    if (res.status < 200 || res.status >= 300) {
      const body = await readErrorBody(res);
      cleanup();
      controller.abort();
      if (signal.aborted) throw abortedError(provider);
      throw httpError({ provider, status: res.status, code: call.errorCode(body), retryAfterMs: parseRetryAfter(res.headers) });
    }

    const reader = bodyStream(res)?.getReader();
    let finished = false;
    const cancel = () => {
      cleanup();
      if (!finished) controller.abort(); // closes the socket: the provider stops generating
    };
    async function* chunks(): AsyncGenerator<Uint8Array, void, undefined> {
      let first = true;
      try {
        if (!reader) return;
        for (;;) {
          // The first body byte may still be on its way (headers came early): same budget.
          arm(first ? 'first byte' : 'idle', first ? timeouts.firstByteMs : timeouts.idleMs);
          let r;
          try {
            r = await reader.read();
          } catch (err) {
            if (signal.aborted) throw abortedError(provider);
            if (timedOut) throw timeoutError(provider, timedOut, timedOut === 'idle' ? timeouts.idleMs : timeouts.firstByteMs);
            throw new ProviderError('unavailable', `${provider} broke off the answer`, { provider, cause: err });
          }
          // The consumer's own pace (playback, backpressure) is not the provider's silence.
          clearTimeout(timer);
          if (r.done) {
            finished = true;
            return;
          }
          first = false;
          if (r.value.byteLength) yield r.value;
        }
      } finally {
        cancel();
      }
    }
    return { status: res.status, headers: res.headers, chunks: chunks(), cancel };
  }
}

/** The whole body (for small answers such as a transcription). */
export async function readAll(stream: HttpStream): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  try {
    for await (const c of stream.chunks) parts.push(c);
  } finally {
    stream.cancel();
  }
  return Buffer.concat(parts);
}

export function parseJsonBody(provider: string, buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (err) {
    throw protocolError(provider, 'a body that is not JSON', err);
  }
}
