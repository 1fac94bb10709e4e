import { z } from 'zod';
import { errors, type FieldError } from '../shared/errors.js';

export type InputRoot = 'body' | 'query' | 'path' | 'header';

type Issue = z.core.$ZodIssue;

/** True when the issue's path ends at a key its (present) parent object does not have. */
function isMissing(issue: Issue, input: unknown): boolean {
  if (issue.path.length === 0) return input === undefined;
  let parent: unknown = input;
  for (const key of issue.path.slice(0, -1)) {
    if (parent === null || typeof parent !== 'object') return false;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  if (parent === null || typeof parent !== 'object') return false;
  return (parent as Record<PropertyKey, unknown>)[issue.path[issue.path.length - 1]] === undefined;
}

/** zod issues → the contract's `[{loc, msg, type}]`, one entry per offending field. */
export function toFieldErrors(issues: readonly Issue[], root: InputRoot, input?: unknown): FieldError[] {
  const out: FieldError[] = [];
  for (const issue of issues) {
    const base = [root, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ loc: [...base, key], msg: 'unknown field', type: 'extra_forbidden' });
    } else if (issue.code !== 'custom' && isMissing(issue, input)) {
      out.push({ loc: base, msg: 'field required', type: 'missing' });
    } else {
      out.push({ loc: base, msg: issue.message, type: issue.code });
    }
  }
  return out;
}

/** Parses `value` or throws the contract's 422. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root: InputRoot): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw errors.validation(toFieldErrors(result.error.issues, root, value));
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

/** The path parameters of a project's routes (`/…/projects/:project_id/…`). */
export const ProjectPath = z.object({ project_id: z.uuid() });
