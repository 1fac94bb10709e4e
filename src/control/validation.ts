import { z } from 'zod';
import { errors, type FieldError } from '../shared/errors.js';

export type InputRoot = 'body' | 'query' | 'path' | 'header';

type Issue = z.core.$ZodIssue;

function issueType(issue: Issue): string {
  if (issue.code === 'invalid_type' && /received undefined/.test(issue.message)) return 'missing';
  if (issue.code === 'unrecognized_keys') return 'extra_forbidden';
  return issue.code;
}

function issueMessage(issue: Issue): string {
  if (issueType(issue) === 'missing') return 'field required';
  if (issue.code === 'unrecognized_keys') return 'unknown field';
  return issue.message;
}

/** zod issues → the contract's `[{loc, msg, type}]`, one entry per offending field. */
export function toFieldErrors(issues: readonly Issue[], root: InputRoot): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const base = [root, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ loc: [...base, key], msg: issueMessage(issue), type: issueType(issue) });
    } else {
      out.push({ loc: base, msg: issueMessage(issue), type: issueType(issue) });
    }
  }
  return out;
}

/** Parses `value` or throws the contract's 422. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root: InputRoot): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw errors.validation(toFieldErrors(result.error.issues, root));
  return result.data;
}

// Query strings arrive as text; these read them strictly ("true"/"false", base-10 integers).
export const queryBool = z.enum(['true', 'false']).transform((v) => v === 'true');
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^-?\d+$/, 'must be an integer')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

/** The contract's list paging: limit 1..200 (default 50), offset ≥ 0 (default 0). */
export const paging = {
  limit: queryInt(1, 200).default(50),
  offset: queryInt(0, 1_000_000_000).default(0),
};

export const uuid = z.uuid();
