import { createPublicKey, verify, type KeyObject } from 'node:crypto';

// Telnyx webhook signatures (API v2): Ed25519 over `${telnyx-timestamp}|${raw body}` with the
// account's key pair; the headers carry the base64 signature (telnyx-signature-ed25519) and the
// Unix timestamp in seconds (telnyx-timestamp). The public key is given as base64 of its 32
// raw bytes. A timestamp more than TOLERANCE_SECONDS away from now is refused (replays).

export const SIGNATURE_HEADER = 'telnyx-signature-ed25519';
export const TIMESTAMP_HEADER = 'telnyx-timestamp';
export const TOLERANCE_SECONDS = 300;

/** The DER prefix of an Ed25519 SubjectPublicKeyInfo; the 32 key bytes follow it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

/** The key object of a base64 raw Ed25519 public key, or null when it is not one. */
export function ed25519PublicKey(base64: string): KeyObject | null {
  const raw = /^[A-Za-z0-9+/]{43}=?$/.test(base64) ? Buffer.from(base64, 'base64') : null;
  if (!raw || raw.length !== 32) return null;
  try {
    return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
  } catch {
    return null;
  }
}

export type SignatureVerdict = 'ok' | 'missing' | 'stale' | 'invalid';

export function verifyTelnyxSignature(
  publicKeyBase64: string,
  signature: string | undefined,
  timestamp: string | undefined,
  rawBody: Buffer | string,
  nowSeconds: number,
): SignatureVerdict {
  if (!signature || !timestamp) return 'missing';
  if (!/^\d{1,12}$/.test(timestamp)) return 'invalid';
  if (Math.abs(nowSeconds - Number(timestamp)) > TOLERANCE_SECONDS) return 'stale';
  const key = ed25519PublicKey(publicKeyBase64);
  const sig = /^[A-Za-z0-9+/]{86}==$/.test(signature) ? Buffer.from(signature, 'base64') : null;
  if (!key || !sig || sig.length !== 64) return 'invalid';
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody) : rawBody;
  const signed = Buffer.concat([Buffer.from(`${timestamp}|`), body]);
  return verify(null, signed, key, sig) ? 'ok' : 'invalid';
}
