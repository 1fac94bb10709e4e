import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

// Server-side request forgery guard for every outbound call to an address a customer chose
// (webhook receivers, provider base_url, carrier base_url): every address the host resolves to
// must be public unicast, and the socket must connect to exactly the address that was checked
// (no second resolution an attacker could rebind).

export class BlockedDestinationError extends Error {
  readonly code = 'VC_ERR_DESTINATION_BLOCKED';
}

interface Range {
  base: bigint;
  bits: number;
  label: string;
}

function v4ToBigInt(ip: string): bigint {
  return ip.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

/** Parses any IPv6 text form (including `::` and a dotted IPv4 tail) to a 128-bit integer. */
function v6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const v4 = v4ToBigInt(dotted[1]);
    text = text.slice(0, -dotted[1].length) + `${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const fill = tail === undefined ? 0 : 8 - headParts.length - tailParts.length;
  const groups = [...headParts, ...Array<string>(fill).fill('0'), ...tailParts];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

const v4 = (cidr: string, label: string): Range => {
  const [ip, bits] = cidr.split('/');
  return { base: v4ToBigInt(ip), bits: Number(bits), label };
};
const v6 = (cidr: string, label: string): Range => {
  const [ip, bits] = cidr.split('/');
  return { base: v6ToBigInt(ip), bits: Number(bits), label };
};

// IANA special-purpose registries (RFC 6890 and successors), plus everything not global.
const BLOCKED_V4: Range[] = [
  v4('0.0.0.0/8', 'this network'),
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'carrier-grade NAT'),
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'),
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'IETF protocol assignments'),
  v4('192.0.2.0/24', 'documentation'),
  v4('192.31.196.0/24', 'AS112'),
  v4('192.52.193.0/24', 'AMT'),
  v4('192.88.99.0/24', '6to4 relay anycast'),
  v4('192.168.0.0/16', 'private'),
  v4('192.175.48.0/24', 'AS112'),
  v4('198.18.0.0/15', 'benchmarking'),
  v4('198.51.100.0/24', 'documentation'),
  v4('203.0.113.0/24', 'documentation'),
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'),
];

const BLOCKED_V6: Range[] = [
  v6('::/128', 'unspecified'),
  v6('::1/128', 'loopback'),
  v6('::ffff:0:0/96', 'IPv4-mapped'),
  v6('::/96', 'IPv4-compatible'),
  v6('64:ff9b::/96', 'NAT64'),
  v6('64:ff9b:1::/48', 'local NAT64'),
  v6('100::/64', 'discard-only'),
  v6('2001::/23', 'IETF protocol assignments'),
  v6('2001:db8::/32', 'documentation'),
  v6('2002::/16', '6to4'),
  v6('3fff::/20', 'documentation'),
  v6('5f00::/16', 'segment routing'),
  v6('fc00::/7', 'unique local'),
  v6('fe80::/10', 'link-local'),
  v6('fec0::/10', 'site-local'),
  v6('ff00::/8', 'multicast'),
];
// Only global unicast (2000::/3) is routable on the public internet today.
const GLOBAL_UNICAST_V6 = v6('2000::/3', 'global unicast');

function inRange(value: bigint, width: number, r: Range): boolean {
  const shift = BigInt(width - r.bits);
  return value >> shift === r.base >> shift;
}

/** Why `ip` must not be contacted, or null when it is a public unicast address. */
export function blockedReason(ip: string): string | null {
  const family = isIP(ip.replace(/^\[|\]$/g, ''));
  const bare = ip.replace(/^\[|\]$/g, '');
  if (family === 4) {
    const value = v4ToBigInt(bare);
    return BLOCKED_V4.find((r) => inRange(value, 32, r))?.label ?? null;
  }
  if (family === 6) {
    const value = v6ToBigInt(bare);
    const hit = BLOCKED_V6.find((r) => inRange(value, 128, r));
    if (hit) return hit.label;
    return inRange(value, 128, GLOBAL_UNICAST_V6) ? null : 'reserved';
  }
  return 'not an IP address';
}

export function assertPublicAddress(ip: string): void {
  const reason = blockedReason(ip);
  if (reason) throw new BlockedDestinationError(`destination address ${ip} is not allowed (${reason})`);
}

/** Host names that can never be public, refused before any resolution. */
export function isLocalHostName(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local') || h.endsWith('.internal') || !h.includes('.');
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
export type Resolver = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemResolver: Resolver = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

/**
 * A `lookup` for net/tls connect (undici `connect.lookup`): resolves every address, refuses the
 * connection when any of them is not public, and hands back only the checked addresses, so
 * the socket connects to an address that was checked (no second resolution to rebind).
 */
export function createSafeLookup(resolve: Resolver = systemResolver) {
  return function safeLookup(
    hostname: string,
    options: { all?: boolean; family?: number | string } | LookupCallback,
    maybeCallback?: LookupCallback,
  ): void {
    const callback = (typeof options === 'function' ? options : maybeCallback)!;
    const opts = typeof options === 'function' ? {} : options;
    resolve(hostname, (err, addresses) => {
      if (err) return callback(err, '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '');
      for (const a of addresses) {
        const reason = blockedReason(a.address);
        if (reason) return callback(new BlockedDestinationError(`${hostname} resolves to ${a.address}, which is not allowed (${reason})`), '');
      }
      const family = opts.family === 6 || opts.family === 'IPv6' ? 6 : opts.family === 4 || opts.family === 'IPv4' ? 4 : 0;
      const matching = family ? addresses.filter((a) => a.family === family) : addresses;
      const usable = matching.length ? matching : addresses;
      if (opts.all) return callback(null, usable);
      return callback(null, usable[0].address, usable[0].family);
    });
  };
}

export const safeLookup = createSafeLookup();

/**
 * Checks a URL before sending: scheme, literal IP addresses (which never reach `lookup`) and
 * names that are local by definition. Resolved addresses are checked by `safeLookup`.
 */
export function assertDeliverableUrl(raw: string): URL {
  const url = new URL(raw);
  if (url.protocol !== 'https:') throw new BlockedDestinationError('only https URLs are delivered to');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) assertPublicAddress(host);
  else if (isLocalHostName(host)) throw new BlockedDestinationError(`host ${host} is not public`);
  return url;
}
