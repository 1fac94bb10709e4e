import { ApiError } from '../api';

// A 422 on a campaign can name thousands of places (one per bad row), so its issues are kept
// whole and grouped by where they go: a field, a row of the pasted list, a `from` number, a
// calling window. Nothing the service says is dropped: what no control shows is listed.

export interface CampaignIssues {
  /** Messages by location below the body, e.g. `retry.max_attempts` (every message kept). */
  byKey: Map<string, string[]>;
  /** Row index → messages, each prefixed with the place inside the row (`to: …`). */
  rows: Map<number, string[]>;
  count: number;
}

const index = (v: string | number | undefined): number | null => {
  const n = typeof v === 'number' ? v : Number(v);
  return v !== undefined && v !== '' && Number.isInteger(n) && n >= 0 ? n : null;
};

export function campaignIssues(error: unknown): CampaignIssues {
  const out: CampaignIssues = { byKey: new Map(), rows: new Map(), count: 0 };
  if (!(error instanceof ApiError) || error.status !== 422 || typeof error.detail === 'string') return out;
  for (const d of error.detail) {
    const loc = d.loc[0] === 'body' ? d.loc.slice(1) : d.loc;
    out.count++;
    const row = loc[0] === 'rows' ? index(loc[1]) : null;
    if (row !== null) {
      const where = loc.slice(2).join('.');
      const list = out.rows.get(row) ?? [];
      list.push(where ? `${where}: ${d.msg}` : d.msg);
      out.rows.set(row, list);
      continue;
    }
    const key = loc.join('.') || '_';
    out.byKey.set(key, [...(out.byKey.get(key) ?? []), d.msg]);
  }
  return out;
}

/** The messages at exactly `key`, joined (undefined when none). */
export function issueAt(issues: CampaignIssues, key: string): string | undefined {
  const list = issues.byKey.get(key);
  return list?.length ? list.join('; ') : undefined;
}

/** Keys no control of the form shows (checked against the prefixes the form does show). */
export function unplacedIssues(issues: CampaignIssues, shown: (key: string) => boolean): [string, string][] {
  return [...issues.byKey].filter(([k]) => !shown(k)).flatMap(([k, msgs]) => msgs.map((m): [string, string] => [k, m]));
}
