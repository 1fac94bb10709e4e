import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

// X-Twilio-Signature (Twilio "Webhooks security"): base64(HMAC-SHA1(auth token, data)) where
// data = the full URL Twilio requested (query included) followed by every POST parameter,
// sorted by name (case-sensitive), as name + value with no separators. A repeated name
// contributes each of its values, sorted. JSON bodies are signed differently: the URL carries
// bodySHA256 = hex(SHA-256(raw body)) and only the URL is signed.

export type SignedParams = Record<string, string | readonly string[]> | URLSearchParams | readonly (readonly [string, string])[];

function toPairs(params: SignedParams): [string, string][] {
  if (params instanceof URLSearchParams) return [...params.entries()];
  if (Array.isArray(params)) return (params as readonly (readonly [string, string])[]).map(([k, v]) => [k, v]);
  const pairs: [string, string][] = [];
  for (const [k, v] of Object.entries(params as Record<string, string | readonly string[]>)) {
    if (typeof v === 'string') pairs.push([k, v]);
    else for (const one of v) pairs.push([k, one]);
  }
  return pairs;
}

// Code-unit order, which is byte order for the ASCII names Twilio uses (Unix-style sort).
const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The string Twilio signs. */
export function signingString(url: string, params: SignedParams = {}): string {
  const byName = new Map<string, string[]>();
  for (const [k, v] of toPairs(params)) byName.set(k, [...(byName.get(k) ?? []), v]);
  let data = url;
  for (const name of [...byName.keys()].sort(byCodeUnit)) {
    for (const value of byName.get(name)!.sort(byCodeUnit)) data += name + value;
  }
  return data;
}

/** base64 HMAC-SHA1 of the signing string with the auth token. */
export function computeSignature(authToken: string, url: string, params: SignedParams = {}): string {
  return createHmac('sha1', authToken).update(signingString(url, params), 'utf8').digest('base64');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // Compare equal-length buffers only; a length mismatch is a mismatch either way.
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The URL as Twilio may have signed it: exactly as given, normalised, and with the scheme's default port
 * added or removed (Twilio's own libraries accept both, as its signing has not been consistent).
 */
function urlVariants(url: string): string[] {
  const out = new Set([url]);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [...out];
  }
  out.add(parsed.toString()); // WHATWG-normalised form (Twilio's Node library signs this one)
  const defaultPort = parsed.protocol === 'https:' || parsed.protocol === 'wss:' ? '443' : '80';
  const rest = parsed.pathname + parsed.search;
  const auth = parsed.username ? `${parsed.username}${parsed.password ? `:${parsed.password}` : ''}@` : '';
  if (!parsed.port || parsed.port === defaultPort) {
    out.add(`${parsed.protocol}//${auth}${parsed.hostname}${rest}`);
    out.add(`${parsed.protocol}//${auth}${parsed.hostname}:${defaultPort}${rest}`);
  }
  return [...out];
}

/** True when `signature` is Twilio's signature of this request. Constant-time per comparison. */
export function validateSignature(authToken: string, signature: string | undefined | null, url: string, params: SignedParams = {}): boolean {
  if (!signature || !authToken) return false;
  let ok = false;
  // Every variant is checked (no early exit), so timing does not tell which one matched.
  for (const variant of urlVariants(url)) ok = safeEqual(signature, computeSignature(authToken, variant, params)) || ok;
  return ok;
}

/** hex SHA-256 of a raw body, as Twilio puts it in the bodySHA256 query parameter. */
export function bodySha256(rawBody: string | Buffer): string {
  return createHash('sha256').update(rawBody).digest('hex');
}

/** JSON-body webhooks: the URL (with bodySHA256) is signed with no parameters, and the hash must match the body. */
export function validateSignatureWithBody(authToken: string, signature: string | undefined | null, url: string, rawBody: string | Buffer): boolean {
  let expected: string | null;
  try {
    expected = new URL(url).searchParams.get('bodySHA256');
  } catch {
    return false;
  }
  const signed = validateSignature(authToken, signature, url, {});
  return signed && expected !== null && safeEqual(expected.toLowerCase(), bodySha256(rawBody));
}
