import WebSocket from 'ws';
import type { IncomingMessage } from 'node:http';
import { abortedError, connectError, httpError, parseRetryAfter, ProviderError, timeoutError } from '../errors.js';
import type { Timeouts } from '../types.js';
import { sleep } from '../llm/http.js';
import { blockedError, checkDestination, connectLookup, isBlockedConnect } from '../net.js';

// WebSocket connect shared by Deepgram live STT, ElevenLabs stream-input and OpenAI Realtime:
// handshake timeout, handshake HTTP errors (401, 429…) read and mapped, connect retries only
// before the socket opened, and abort → terminate.

export interface WsCall {
  provider: string;
  url: string;
  headers: Record<string, string>;
  timeouts: Timeouts;
  retries: number;
  signal: AbortSignal;
  errorCode: (body: unknown) => string | undefined;
  /** Private and loopback destinations allowed (ALLOW_PRIVATE_URLS); default true. */
  allowPrivate?: boolean;
}

const RETRYABLE_CONNECT = new Set(['ECONNREFUSED', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function readBody(res: IncomingMessage): Promise<unknown> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    const t = setTimeout(() => finish(), 2000);
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 64 * 1024) parts.push(c);
    });
    res.on('end', finish);
    res.on('error', finish);
    function finish() {
      clearTimeout(t);
      try {
        resolve(JSON.parse(Buffer.concat(parts).toString('utf8')));
      } catch {
        resolve(undefined);
      }
    }
  });
}

function once(call: WsCall): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const { provider, signal } = call;
    const lookup = connectLookup(call.allowPrivate !== false);
    const ws = new WebSocket(call.url, {
      headers: { 'user-agent': 'voice-agent-service/1', ...call.headers },
      handshakeTimeout: call.timeouts.connectMs + call.timeouts.firstByteMs,
      followRedirects: false,
      perMessageDeflate: false,
      ...(lookup ? { lookup } : {}),
    });
    let settled = false;
    const settle = (err: ProviderError | null) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) {
        ws.removeAllListeners();
        ws.on('error', () => {});
        ws.terminate();
        reject(err);
      } else resolve(ws);
    };
    const onAbort = () => settle(abortedError(provider));
    signal.addEventListener('abort', onAbort, { once: true });
    ws.on('open', () => {
      // Frames that arrive with the 101 (OpenAI's session.created) would be emitted before the
      // caller can listen: hold them until it calls resume().
      ws.pause();
      settle(null);
    });
    ws.on('unexpected-response', (req, res) => {
      void readBody(res).then((body) => {
        req.destroy();
        const status = res.statusCode ?? 0;
        const err = httpError({ provider, status, code: call.errorCode(body), retryAfterMs: parseRetryAfter({ get: (n) => (res.headers[n] as string | undefined) ?? null }) });
        // A refused upgrade produced nothing: a gateway error there is as safe to retry as a refused connect.
        settle(Object.assign(err, { retryable: status === 502 || status === 503 || status === 504 }));
      });
    });
    ws.on('error', (err: Error & { code?: string }) => {
      if (/handshake has timed out/i.test(err.message)) settle(timeoutError(provider, 'connect', call.timeouts.connectMs + call.timeouts.firstByteMs));
      else if (isBlockedConnect(err)) settle(blockedError(provider, new URL(call.url).host, err));
      else settle(Object.assign(connectError(provider, err), { retryable: RETRYABLE_CONNECT.has(err.code ?? '') }));
    });
  });
}

/** An open, paused socket (attach listeners, then `resume()`), or a ProviderError. */
export async function connectWs(call: WsCall): Promise<WebSocket> {
  checkDestination(call.provider, call.url, call.allowPrivate !== false);
  for (let attempt = 0; ; attempt++) {
    if (call.signal.aborted) throw abortedError(call.provider);
    try {
      return await once(call);
    } catch (err) {
      const retryable = (err as { retryable?: boolean }).retryable === true;
      if (!retryable || attempt >= call.retries || call.signal.aborted) throw err;
      await sleep(100 * 2 ** attempt, call.signal);
    }
  }
}

/** Maps a close that we did not ask for onto a ProviderError. */
export function closeError(provider: string, code: number, reason: string): ProviderError {
  const safe = /^[A-Za-z0-9_. :-]{1,80}$/.test(reason) ? `: ${reason}` : '';
  if (code === 1008) return new ProviderError('bad_request', `${provider} closed the socket (policy violation${safe})`, { provider, status: code });
  if (code === 1013) return new ProviderError('rate_limit', `${provider} closed the socket (try again later)`, { provider, status: code });
  return new ProviderError('unavailable', `${provider} closed the socket unexpectedly (code ${code}${safe})`, { provider, status: code });
}

export const pcmToBase64 = (pcm: Int16Array): string => Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).toString('base64');
