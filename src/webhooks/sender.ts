import { Agent, request } from 'undici';
import { assertDeliverableUrl, BlockedDestinationError, createSafeLookup, type Resolver } from '../shared/net/address-policy.js';

// One HTTP POST per attempt. Redirects are never followed (undici's `request` follows none
// without the redirect interceptor), so a 3xx is reported as the failure it is.

export interface SendRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface SendResult {
  ok: boolean;
  status: number | null;
  /** From `Retry-After` on a 429 or 503. */
  retryAfterMs: number | null;
  error: string | null;
  /** No later attempt can succeed (the destination is forbidden). */
  permanent: boolean;
}

export interface Sender {
  send(req: SendRequest): Promise<SendResult>;
  close(): Promise<void>;
}

const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** `Retry-After` as delay-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, nowMs: number): number | null {
  const text = Array.isArray(value) ? value[0] : value;
  if (!text) return null;
  if (/^\s*\d+\s*$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(at - nowMs, 0), MAX_RETRY_AFTER_MS);
}

function isBlocked(err: unknown): err is Error {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e instanceof BlockedDestinationError || e.code === 'VC_ERR_DESTINATION_BLOCKED') return true;
  }
  return false;
}

function blockedMessage(err: unknown): string {
  for (let e = err as { message?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e instanceof BlockedDestinationError) return e.message;
  }
  return 'destination not allowed';
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string };
  if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT') {
    return `timeout after ${timeoutMs} ms`;
  }
  if (e.code === 'UND_ERR_CONNECT_TIMEOUT') return 'connect timeout';
  const cause = (err as { cause?: { code?: string } }).cause;
  const code = e.code ?? cause?.code;
  return code ? `connection failed (${code})` : 'connection failed';
}

/**
 * `allowPrivate` (ALLOW_PRIVATE_URLS=1, development and tests) skips the address checks and
 * allows http; otherwise every connection goes through `safeLookup` to a checked address.
 */
export function createSender(opts: { allowPrivate: boolean; connectionsPerOrigin?: number; resolve?: Resolver }): Sender {
  const agent = new Agent({
    connections: opts.connectionsPerOrigin ?? 64,
    keepAliveTimeout: 10_000,
    connect: opts.allowPrivate ? {} : { lookup: createSafeLookup(opts.resolve) },
  });
  return {
    async send(req) {
      try {
        if (!opts.allowPrivate) assertDeliverableUrl(req.url);
        else if (!/^https?:$/.test(new URL(req.url).protocol)) throw new BlockedDestinationError('only http(s) URLs are delivered to');
      } catch (err) {
        const message = err instanceof BlockedDestinationError ? err.message : 'invalid URL';
        return { ok: false, status: null, retryAfterMs: null, error: message, permanent: true };
      }
      try {
        const res = await request(req.url, {
          dispatcher: agent,
          method: 'POST',
          headers: req.headers,
          body: req.body,
          signal: AbortSignal.timeout(req.timeoutMs),
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
        await res.body.dump({ limit: 64 * 1024 }).catch(() => {});
        const status = res.statusCode;
        if (status >= 200 && status < 300) return { ok: true, status, retryAfterMs: null, error: null, permanent: false };
        const retryAfterMs = status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after'], Date.now()) : null;
        const error = status >= 300 && status < 400 ? `HTTP ${status} (redirects are not followed)` : `HTTP ${status}`;
        return { ok: false, status, retryAfterMs, error, permanent: false };
      } catch (err) {
        if (isBlocked(err)) return { ok: false, status: null, retryAfterMs: null, error: blockedMessage(err), permanent: true };
        return { ok: false, status: null, retryAfterMs: null, error: describe(err, req.timeoutMs), permanent: false };
      }
    },
    close: () => agent.close(),
  };
}
