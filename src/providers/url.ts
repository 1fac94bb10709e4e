import { BlockList, isIP } from 'node:net';

// Where we let an account's base_url (and an agent's webhook addresses) point: a public
// HTTPS address. ALLOW_PRIVATE_URLS (development and tests) also allows http and private hosts.

const blocked = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16],
  ['198.18.0.0', 15], ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) blocked.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96],
  ['64:ff9b:1::', 48], ['2002::', 16], ['2001:db8::', 32], ['2001::', 32], ['100::', 64],
] as const) blocked.addSubnet(net, bits, 'ipv6');

/** True for loopback, private, link-local, CGNAT, multicast, reserved, NAT64 and 6to4 addresses. */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) {
    // IPv4-mapped (::ffff:a.b.c.d / ::ffff:xxxx:xxxx) is judged by its IPv4 address.
    const mapped = /^::ffff:(.+)$/i.exec(bare);
    if (mapped) {
      const rest = mapped[1];
      if (isIP(rest) === 4) return blocked.check(rest, 'ipv4');
      const m = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(rest);
      if (m) {
        const n = (parseInt(m[1], 16) << 16) | parseInt(m[2], 16);
        return blocked.check([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.'), 'ipv4');
      }
    }
    return blocked.check(bare, 'ipv6');
  }
  return false;
}

function isLocalName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || !h.includes('.');
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
  if (isLocalName(host)) return 'must not point at a private, loopback or link-local address';
  return null;
}
