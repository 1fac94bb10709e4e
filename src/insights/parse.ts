import type { InsightField } from '../contract/agents.js';
import type { InsightPlan } from './config.js';

// The model's answer → {summary, success, data}. Models wrap JSON in code fences or add a
// sentence around it, so the object is dug out; every field is then coerced to its declared
// type. Anything that does not fit becomes null; a required field that ends up null, or a
// summary that was asked for and not given, is named in `problems`.

export type InsightValue = string | number | boolean | null;

export interface ParsedInsights {
  summary: string | null;
  success: boolean | null;
  data: Record<string, InsightValue>;
  problems: string[];
}

export class InvalidModelOutput extends Error {}

const MAX_SUMMARY_CHARS = 4_000;
const MAX_STRING_CHARS = 2_000;

function tryObject(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The JSON object in a model's answer: the whole text, a fenced block, or the outermost braces. */
export function extractJsonObject(text: string): Record<string, unknown> | null {
  const trimmed = text.trim();
  const direct = tryObject(trimmed);
  if (direct) return direct;
  const fenced = /```(?:json|JSON)?\s*([\s\S]*?)```/.exec(trimmed);
  if (fenced) {
    const inFence = tryObject(fenced[1].trim());
    if (inFence) return inFence;
  }
  const first = trimmed.indexOf('{');
  const last = trimmed.lastIndexOf('}');
  return first >= 0 && last > first ? tryObject(trimmed.slice(first, last + 1)) : null;
}

const TRUE = new Set(['true', 'yes']);
const FALSE = new Set(['false', 'no']);

function asBoolean(v: unknown): boolean | null {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (TRUE.has(t)) return true;
    if (FALSE.has(t)) return false;
  }
  return null;
}

/** `value` as the field's type, or null when it is absent or does not fit. */
export function coerceField(field: InsightField, value: unknown): InsightValue {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'string':
      if (typeof value === 'string') return value.trim() ? value.trim().slice(0, MAX_STRING_CHARS) : null;
      return typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : NaN;
      return Number.isFinite(n) ? n : null;
    }
    case 'integer': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && /^\s*-?\d+\s*$/.test(value) ? Number(value) : NaN;
      return Number.isSafeInteger(n) ? n : null;
    }
    case 'boolean':
      return asBoolean(value);
    case 'enum': {
      if (typeof value !== 'string') return null;
      const options = field.enum ?? [];
      if (options.includes(value)) return value;
      const wanted = value.trim().toLowerCase();
      return options.find((o) => o.toLowerCase() === wanted) ?? null;
    }
  }
}

/** Reads the model's answer for `plan`; throws InvalidModelOutput when it holds no JSON object. */
export function parseInsights(text: string, plan: InsightPlan): ParsedInsights {
  const obj = extractJsonObject(text);
  if (!obj) throw new InvalidModelOutput('model output is not a JSON object');
  const problems: string[] = [];

  let summary: string | null = null;
  if (plan.summary) {
    summary = typeof obj.summary === 'string' && obj.summary.trim() ? obj.summary.trim().slice(0, MAX_SUMMARY_CHARS) : null;
    if (summary === null) problems.push('summary missing');
  }
  const success = plan.successCriteria ? asBoolean(obj.success) : null;

  const given = obj.data && typeof obj.data === 'object' && !Array.isArray(obj.data) ? (obj.data as Record<string, unknown>) : {};
  const data: Record<string, InsightValue> = {};
  const missing: string[] = [];
  for (const f of plan.fields) {
    data[f.name] = coerceField(f, given[f.name]);
    if (f.required && data[f.name] === null) missing.push(f.name);
  }
  if (missing.length) problems.push(`required field${missing.length > 1 ? 's' : ''} missing or invalid: ${missing.join(', ')}`);
  return { summary, success, data, problems };
}
