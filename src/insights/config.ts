import { InsightConfig, type InsightField } from '../contract/agents.js';

// An agent version's insight_config, read back and normalised for the analysis: every field
// as an object (a bare name is `{name, type: "string"}`), defaults applied.

export interface InsightPlan {
  summary: boolean;
  successCriteria: string | null;
  fields: InsightField[];
}

/** The plan for a stored insight_config, or null when it is not a valid InsightConfigBody. */
export function insightPlan(stored: unknown): InsightPlan | null {
  const parsed = InsightConfig.safeParse(stored);
  if (!parsed.success) return null;
  const c = parsed.data;
  return {
    summary: c.summary,
    successCriteria: c.success_criteria ?? null,
    fields: (c.fields ?? []).map((f) => (typeof f === 'string' ? { name: f, type: 'string', required: false } : f)),
  };
}
