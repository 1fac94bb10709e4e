import { errors } from '../shared/errors.js';

// Postgres cannot store a NUL character in text, nor a lone UTF-16 surrogate in jsonb; such
// input is the client's mistake (422), not a server failure.

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badText(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

function find(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (typeof value === 'string') return badText(value) ? path : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = find(value[i], [...path, i]);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (badText(k)) return [...path, k];
      const hit = find(v, [...path, k]);
      if (hit) return hit;
    }
  }
  return null;
}

/** Throws a 422 naming the first string (or key) in `body` that Postgres cannot store. */
export function assertStorableText(body: unknown): void {
  const loc = find(body, ['body']);
  if (loc) throw errors.validation([{ loc, msg: 'text must not contain NUL characters or unpaired surrogates', type: 'value_error' }]);
}
