import { errors } from '../shared/errors.js';

// Postgres cannot store a NUL character in text, nor a lone UTF-16 surrogate in jsonb, and
// refuses very deep jsonb; such input is the client's mistake (422), not a server failure.
// The JSON body parser checks every body with this; the walk stops at MAX_DEPTH, so a
// hostile 100,000-deep body costs no more than a 33-deep one.

export const MAX_DEPTH = 32;

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function badText(s: string): boolean {
  return s.includes('\u0000') || LONE_SURROGATE.test(s);
}

type Problem = { loc: (string | number)[]; msg: string };
const TEXT = 'text must not contain NUL characters or unpaired surrogates';

function find(value: unknown, path: (string | number)[]): Problem | null {
  if (typeof value === 'string') return badText(value) ? { loc: path, msg: TEXT } : null;
  if (path.length > MAX_DEPTH && value !== null && typeof value === 'object') {
    return { loc: path, msg: `nested more than ${MAX_DEPTH} levels deep` };
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = find(value[i], [...path, i]);
      if (hit) return hit;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (badText(k)) return { loc: [...path, k], msg: TEXT };
      const hit = find(v, [...path, k]);
      if (hit) return hit;
    }
  }
  return null;
}

/** The first string (or key) in a JSON body that Postgres cannot store, or nesting past MAX_DEPTH; null when none. */
export function storableProblem(body: unknown): Problem | null {
  return find(body, ['body']);
}

/** Throws a 422 naming the first string (or key) in `body` that Postgres cannot store. */
export function assertStorableText(body: unknown): void {
  const problem = storableProblem(body);
  if (problem) throw errors.validation([{ ...problem, type: 'value_error' }]);
}
