import { ConnectionError, errorFor, retryAfterSeconds, TimeoutError } from './errors.js';
import { abortReason, backoffMs, DEFAULT_RETRY, mayRetry, RETRYABLE_STATUSES, sleep, type RetryPolicy } from './retry.js';

// One HTTP transport for both doors: JSON in and out, typed errors, timeouts, AbortSignal and
// the retry rules of retry.ts.

export interface ClientOptions {
  /** Service address, e.g. `https://voice.example.com`. */
  baseUrl: string;
  /** Retries after the first attempt (default 2). */
  maxRetries?: number;
  /** Per-attempt timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Backoff tuning; see retry.ts. */
  retry?: Partial<Omit<RetryPolicy, 'maxRetries'>>;
  /** Another fetch (a proxy agent, a test double). */
  fetch?: typeof fetch;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
}

export interface RequestOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
  maxRetries?: number;
  /**
   * `Idempotency-Key` for a creating POST: a string, or `true` to have one generated. Only a POST
   * with a key is retried; the server answers a repeat with the first response.
   */
  idempotencyKey?: string | true;
  headers?: Record<string, string>;
}

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface Call {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query;
  body?: unknown;
}

/** Credentials for a request, and what to do once on a 401 (the console door refreshes). */
export interface Auth {
  headers(): Promise<Record<string, string>>;
  /** Called once on a 401; true means the credentials changed and the request may be sent again. */
  renew?(): Promise<boolean>;
}

export class Transport {
  readonly baseUrl: string;
  private readonly policy: RetryPolicy;
  private readonly timeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly headers: Record<string, string>;

  constructor(opts: ClientOptions, private readonly auth: Auth) {
    this.baseUrl = opts.baseUrl.replace(/\/+$/, '');
    this.policy = { ...DEFAULT_RETRY, ...opts.retry, maxRetries: opts.maxRetries ?? DEFAULT_RETRY.maxRetries };
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.fetchImpl = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.headers = opts.headers ?? {};
  }

  url(path: string, query?: Query): string {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) params.set(k, String(v));
    const qs = params.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }

  async request<T>(call: Call, opts: RequestOptions = {}): Promise<T> {
    const key = opts.idempotencyKey === true ? globalThis.crypto.randomUUID() : opts.idempotencyKey;
    const retryable = mayRetry(call.method, key !== undefined);
    const maxRetries = opts.maxRetries ?? this.policy.maxRetries;
    let renewed = false;
    for (let retry = 0; ; retry++) {
      let res: Response;
      try {
        res = await this.attempt(call, opts, key);
      } catch (err) {
        if (opts.signal?.aborted || !(err instanceof ConnectionError) || !retryable || retry >= maxRetries) throw err;
        await sleep(backoffMs(this.policy, retry, null), opts.signal);
        continue;
      }
      if (res.ok) return (await readBody(res)) as T;
      const error = errorFor({ status: res.status, detail: await detailOf(res), requestId: res.headers.get('x-request-id'), headers: res.headers });
      if (res.status === 401 && !renewed && this.auth.renew) {
        renewed = true;
        if (await this.auth.renew()) {
          retry--;
          continue;
        }
      }
      if (!RETRYABLE_STATUSES.has(res.status) || !retryable || retry >= maxRetries) throw error;
      await sleep(backoffMs(this.policy, retry, retryAfterSeconds(res.headers)), opts.signal);
    }
  }

  private async attempt(call: Call, opts: RequestOptions, key: string | undefined): Promise<Response> {
    const headers: Record<string, string> = { accept: 'application/json', ...this.headers, ...(await this.auth.headers()), ...opts.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (key !== undefined) headers['idempotency-key'] = key;
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const controller = new AbortController();
    const onAbort = () => controller.abort(opts.signal?.reason);
    if (opts.signal?.aborted) throw abortReason(opts.signal);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const res = await this.fetchImpl(this.url(call.path, call.query), {
        method: call.method,
        headers,
        body: call.body === undefined ? undefined : JSON.stringify(call.body),
        signal: controller.signal,
      });
      // The body is read inside the timeout too: a connection dropped mid-body is a connection error.
      const text = await res.text();
      return new Response(text === '' || res.status === 204 ? null : text, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (err) {
      if (opts.signal?.aborted) throw abortReason(opts.signal);
      if (timedOut) throw new TimeoutError(timeoutMs);
      throw new ConnectionError(`${call.method} ${call.path}: no response (${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)})`, { cause: err });
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text();
  return text === '' ? undefined : JSON.parse(text);
}

async function detailOf(res: Response): Promise<unknown> {
  const text = await res.text();
  try {
    const body = JSON.parse(text) as { detail?: unknown };
    return body && typeof body === 'object' && 'detail' in body ? body.detail : body;
  } catch {
    return text || res.statusText;
  }
}

