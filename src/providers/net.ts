import { isIP } from 'node:net';
import { Agent } from 'undici';
import { blockedReason, safeLookup } from '../shared/net/address-policy.js';
import { ProviderError } from './errors.js';

// The outbound address policy of provider adapters: the same connect-time check as account
// verification and webhooks (shared/net/address-policy). Unless private URLs are allowed
// (ALLOW_PRIVATE_URLS=1), a base_url may only reach public unicast addresses: literal IPs are
// checked before anything is sent, host names at connect time by `safeLookup`, which hands
// the socket the very addresses it checked (no second resolution to rebind).

export const DESTINATION_BLOCKED = 'VC_ERR_DESTINATION_BLOCKED';

/** The refusal every adapter reports: not recoverable, nothing was sent. */
export function blockedError(provider: string, host: string, cause?: unknown): ProviderError {
  return new ProviderError('bad_request', `${provider}: ${host} is a private, loopback or link-local address, which is not allowed`, {
    provider,
    code: 'destination_blocked',
    cause,
  });
}

/** Refuses a URL whose host is a literal private address (those never reach `lookup`). */
export function checkDestination(provider: string, rawUrl: string, allowPrivate: boolean): void {
  if (allowPrivate) return;
  const url = new URL(rawUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && blockedReason(host) !== null) throw blockedError(provider, url.host);
}

/** True when a connect failure is the address policy refusing the resolved address. */
export function isBlockedConnect(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string; cause?: { code?: string } } } | undefined;
  return e?.code === DESTINATION_BLOCKED || e?.cause?.code === DESTINATION_BLOCKED || e?.cause?.cause?.code === DESTINATION_BLOCKED;
}

/** The `lookup` for `ws` / net connects: only checked public addresses, or the system's when private URLs are allowed. */
export function connectLookup(allowPrivate: boolean): typeof safeLookup | undefined {
  return allowPrivate ? undefined : safeLookup;
}

const agents = new Map<string, Agent>();

/** An undici dispatcher with the connect timeout and, unless private URLs are allowed, the checked lookup. */
export function httpDispatcher(connectMs: number, allowPrivate: boolean): Agent {
  const key = `${connectMs}|${allowPrivate ? 'any' : 'public'}`;
  let a = agents.get(key);
  if (!a) {
    const connect = allowPrivate ? { timeout: connectMs } : { timeout: connectMs, lookup: safeLookup as never };
    agents.set(key, (a = new Agent({ connect, headersTimeout: 0, bodyTimeout: 0 })));
  }
  return a;
}
