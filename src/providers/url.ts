import { isIP } from 'node:net';
import { blockedReason, isLocalHostName } from '../shared/net/address-policy.js';

// Where we let an account's base_url (and an agent's webhook addresses) point: a public
// HTTPS address. ALLOW_PRIVATE_URLS (development and tests) also allows http and private hosts.

/** True for loopback, private, link-local, CGNAT, multicast, reserved, NAT64, 6to4 and IPv4-mapped addresses. */
export function isPrivateAddress(ip: string): boolean {
  return isIP(ip.replace(/^\[|\]$/g, '')) !== 0 && blockedReason(ip) !== null;
}

/** Why `raw` is not an acceptable outbound URL, or null when it is. */
export function outboundUrlProblem(raw: string, allowPrivate: boolean, opts: { allowQuery?: boolean } = {}): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain credentials';
  if (url.hash) return 'must not contain a fragment';
  if (url.search && !opts.allowQuery) return 'must not contain a query';
  if (allowPrivate) return url.protocol === 'https:' || url.protocol === 'http:' ? null : 'must use https';
  if (url.protocol !== 'https:') return 'must use https';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) return isPrivateAddress(host) ? 'must not point at a private, loopback or link-local address' : null;
  if (isLocalHostName(host)) return 'must not point at a private, loopback or link-local address';
  return null;
}
