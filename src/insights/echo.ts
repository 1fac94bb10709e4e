import type { TranscriptEntry } from '../contract/events.js';
import type { InsightPlan } from './config.js';
import type { ParsedInsights } from './parse.js';

// The `local` provider's `echo` model cannot analyse anything. For tests and the offline demo
// it yields a deterministic "summary" made of the caller's first and last utterances, no
// success verdict and null for every field.

const MAX_QUOTE_CHARS = 160;

function quote(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > MAX_QUOTE_CHARS ? `${t.slice(0, MAX_QUOTE_CHARS - 1)}…` : t;
}

export function echoInsights(plan: InsightPlan, transcript: readonly TranscriptEntry[]): ParsedInsights {
  const said = transcript.filter((e) => e.role === 'user' && e.text.trim());
  let summary: string | null = null;
  if (plan.summary) {
    if (said.length === 0) summary = 'The caller said nothing.';
    else if (said.length === 1) summary = `The caller said: "${quote(said[0].text)}".`;
    else summary = `The caller first said: "${quote(said[0].text)}" and last said: "${quote(said[said.length - 1].text)}".`;
  }
  return { summary, success: null, data: Object.fromEntries(plan.fields.map((f) => [f.name, null])), problems: [] };
}
