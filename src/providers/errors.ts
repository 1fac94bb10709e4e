// One error class for every provider adapter. The engine decides from `kind` alone:
// 'auth' marks the account invalid; 'rate_limit' / 'unavailable' / 'timeout' are recoverable
// (an `error` frame, maybe another try later); the rest end the call with `provider_error`.
// Messages are ours and static: a provider's free text can echo the key, so only its short
// machine code (e.g. `invalid_api_key`) is kept, and any key is scrubbed before we build one.

export type ProviderErrorKind = 'auth' | 'rate_limit' | 'unavailable' | 'bad_request' | 'timeout' | 'protocol' | 'aborted';

export interface ProviderErrorInit {
  provider: string;
  status?: number;
  code?: string;
  retryAfterMs?: number;
  cause?: unknown;
}

const RECOVERABLE: ReadonlySet<ProviderErrorKind> = new Set(['rate_limit', 'unavailable', 'timeout']);
const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

export class ProviderError extends Error {
  override readonly name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  /** HTTP status (or WebSocket close code) when the provider sent one. */
  readonly status?: number;
  /** The provider's short machine code, when it is safe to show. */
  readonly code?: string;
  /** From `retry-after` / `retry-after-ms` on a 429 or 503. */
  readonly retryAfterMs?: number;

  constructor(kind: ProviderErrorKind, message: string, init: ProviderErrorInit) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.kind = kind;
    this.provider = init.provider;
    this.status = init.status;
    this.code = init.code !== undefined && SAFE_CODE.test(init.code) ? init.code : undefined;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** Worth an `error` frame and carrying on (429, 5xx, timeouts). */
  get recoverable(): boolean {
    return RECOVERABLE.has(this.kind);
  }

  /** The account's key is wrong or lacks permission: mark the account `invalid`. */
  get invalidatesAccount(): boolean {
    return this.kind === 'auth';
  }
}

export function isProviderError(err: unknown): err is ProviderError {
  return err instanceof ProviderError;
}

/** HTTP status → kind. One place for every adapter (and WebSocket handshakes). */
export function kindForStatus(status: number): ProviderErrorKind {
  if (status === 401 || status === 403) return 'auth';
  if (status === 429) return 'rate_limit';
  if (status === 408) return 'timeout';
  if (status >= 500) return 'unavailable';
  return 'bad_request';
}

/** `retry-after` (seconds or HTTP date) or `retry-after-ms`, in milliseconds. */
export function parseRetryAfter(headers: { get(name: string): string | null }, nowMs = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) return Math.round(Number(ms));
  const raw = headers.get('retry-after');
  if (!raw) return undefined;
  if (/^\d+(\.\d+)?$/.test(raw.trim())) return Math.round(Number(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

export interface HttpErrorDetails {
  provider: string;
  status: number;
  /** Short machine code from the provider's error body, if any. */
  code?: string;
  retryAfterMs?: number;
}

export function httpError(d: HttpErrorDetails): ProviderError {
  const kind = kindForStatus(d.status);
  const code = d.code && SAFE_CODE.test(d.code) ? `, ${d.code}` : '';
  const what =
    kind === 'auth' ? 'rejected the API key' :
    kind === 'rate_limit' ? 'is rate limiting this account' :
    kind === 'unavailable' ? 'is unavailable' :
    kind === 'timeout' ? 'timed out' : 'refused the request';
  return new ProviderError(kind, `${d.provider} ${what} (HTTP ${d.status}${code})`, d);
}

export function timeoutError(provider: string, phase: 'connect' | 'first byte' | 'idle', ms: number): ProviderError {
  return new ProviderError('timeout', `${provider}: no ${phase === 'idle' ? 'data' : phase} within ${ms} ms`, { provider, code: phase.replace(' ', '_') });
}

export function protocolError(provider: string, what: string, cause?: unknown): ProviderError {
  return new ProviderError('protocol', `${provider} sent ${what}`, { provider, cause });
}

export function abortedError(provider: string): ProviderError {
  return new ProviderError('aborted', `${provider} request cancelled`, { provider });
}

/** Network failure before any answer: safe to retry (nothing was produced). */
export function connectError(provider: string, cause: unknown): ProviderError {
  const c = cause as { code?: string; cause?: { code?: string } };
  const code = c?.cause?.code ?? c?.code;
  return new ProviderError('unavailable', `${provider}: could not connect${code && SAFE_CODE.test(code) ? ` (${code})` : ''}`, { provider, code, cause });
}

/** Removes the key from any text we are about to show or log. */
export function scrubKey(text: string, apiKey: string | null | undefined): string {
  return apiKey && apiKey.length >= 4 ? text.split(apiKey).join('[redacted]') : text;
}

/** A provider's error code, taken only when it looks like a code (never free text). */
export function safeCode(v: unknown): string | undefined {
  return typeof v === 'string' && SAFE_CODE.test(v) ? v : undefined;
}
