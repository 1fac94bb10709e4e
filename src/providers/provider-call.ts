import { joinUrl } from './llm/http.js';
import type { ProviderHost } from './hosts.js';
import { resolveTimeouts, type AdapterOptions, type Timeouts } from './types.js';

// What every streaming adapter derives the same way from its account (AdapterOptions) for a
// request or socket to its provider: the URL under the account's base_url (or the provider's
// own host), the key's header after the request's own, timeouts, connect retries and the
// private-URL policy. openHttpStream and connectWs take the result as it is.

export interface ProviderApi extends ProviderHost {
  /** The short machine code in the provider's error body. */
  errorCode: (body: unknown) => string | undefined;
}

export interface CallTarget {
  path: string;
  /** Appended as `?query`. */
  query?: URLSearchParams;
  /** The request's own headers (the key's header follows them). */
  headers?: Record<string, string>;
  signal: AbortSignal;
  /** A WebSocket: the base URL's http(s) scheme becomes ws(s). */
  websocket?: boolean;
}

export interface ProviderCall {
  provider: string;
  url: string;
  headers: Record<string, string>;
  timeouts: Timeouts;
  retries: number;
  allowPrivate?: boolean;
  signal: AbortSignal;
  errorCode: (body: unknown) => string | undefined;
}

export function providerCall(api: ProviderApi, opts: AdapterOptions, target: CallTarget): ProviderCall {
  const base = opts.baseUrl || api.defaultBaseUrl;
  const url = joinUrl(target.websocket ? base.replace(/^http/, 'ws') : base, target.path);
  return {
    provider: api.name,
    url: target.query ? `${url}?${target.query}` : url,
    headers: { ...target.headers, ...(opts.apiKey ? api.keyHeader(opts.apiKey) : {}) },
    timeouts: resolveTimeouts(opts.timeouts),
    retries: opts.connectRetries ?? 2,
    allowPrivate: opts.allowPrivateUrls,
    signal: target.signal,
    errorCode: api.errorCode,
  };
}
