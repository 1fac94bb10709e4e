import { createHash } from 'node:crypto';
import { z } from 'zod';

// Idempotency-Key (contract §8, §11): 1–255 printable ASCII characters on a creating POST,
// remembered 24 h per project with the SHA-256 of the canonical request.

export const IDEMPOTENCY_HEADER = 'Idempotency-Key';
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
const KEY = /^[\x20-\x7e]{1,255}$/;

/**
 * The header's schema. Node lower-cases header names; the schema reports the header under its
 * documented spelling so a bad key is 422 at `loc ["header","Idempotency-Key"]`.
 */
export const IdempotencyHeaders = z.preprocess(
  (raw) => {
    const v = (raw as Record<string, unknown> | undefined)?.['idempotency-key'];
    return { [IDEMPOTENCY_HEADER]: Array.isArray(v) ? v.join(', ') : v };
  },
  z.object({
    [IDEMPOTENCY_HEADER]: z.string().regex(KEY, 'must be 1 to 255 printable ASCII characters').optional(),
  }),
);

/** JSON with object keys sorted at every level: equal bodies hash equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function bodyHash(body: unknown): string {
  return createHash('sha256').update(canonicalJson(body)).digest('hex');
}
