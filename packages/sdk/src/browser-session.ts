import { Transport, type ClientOptions, type RequestOptions } from './http.js';
import type { BrowserSessionRequest, BrowserSessionResponse } from './types.js';

// The public door of a web page (contract §2): one voice session on one agent with a
// publishable key (`pk_...`), from an origin on the key's list. Safe in a browser bundle.

export interface BrowserSessionOptions extends ClientOptions {
  publishableKey: string;
  /**
   * The page's origin. A browser sends its own `Origin` and ignores this; a server-side caller
   * (a test, a proxy) names it here.
   */
  origin?: string;
}

/** Admits a browser voice session; connect its `ws_url` (single use) with `connectMedia` or @voice-agent/browser. */
export function createBrowserSession(opts: BrowserSessionOptions, body: BrowserSessionRequest, request?: RequestOptions): Promise<BrowserSessionResponse> {
  if (!opts.publishableKey) throw new TypeError('createBrowserSession needs a publishableKey');
  const headers: Record<string, string> = { 'x-publishable-key': opts.publishableKey };
  if (opts.origin) headers.origin = opts.origin;
  return new Transport(opts, { headers: async () => headers }).request({ method: 'POST', path: '/v2/browser/sessions', body }, request);
}
