// Retry rules of spec §7: only 429, 502 and 503 (and a connection that gave no answer, which a
// proxy would have reported as 502); exponential backoff with full jitter; Retry-After honoured;
// a POST only when it carries an idempotency key.

export const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503]);

export interface RetryPolicy {
  maxRetries: number;
  /** First backoff ceiling; doubles each attempt. */
  baseDelayMs: number;
  /** Backoff ceiling cap. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxRetries: 2, baseDelayMs: 500, maxDelayMs: 8000 };

/** May this request be sent again? POSTs only with an idempotency key (the server dedupes them). */
export function mayRetry(method: string, hasIdempotencyKey: boolean): boolean {
  return method !== 'POST' || hasIdempotencyKey;
}

/**
 * The wait before retry number `retry` (0-based): full jitter, uniform in [0, min(cap, base·2^retry)],
 * never shorter than the server's Retry-After.
 */
export function backoffMs(policy: RetryPolicy, retry: number, retryAfterSec: number | null, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  const jittered = random() * ceiling;
  return retryAfterSec === null ? jittered : Math.max(retryAfterSec * 1000, jittered);
}

/** The reason an aborted signal carries, as an Error. */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new DOMException(typeof reason === 'string' ? reason : 'aborted', 'AbortError');
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortReason(signal));
    const onAbort = () => {
      clearTimeout(timer);
      if (signal) reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
