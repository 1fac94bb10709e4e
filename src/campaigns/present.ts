import type { CampaignCounters, CampaignInfo, CampaignRowInfo } from '../contract/campaigns.js';
import type { CampaignRow } from '../db/repos/campaigns.js';
import type { RowPageEntry } from '../db/repos/campaign-rows.js';

// Campaign records as the API (and the campaign.completed event) show them.

const iso = (d: Date | string) => new Date(d).toISOString();

export function toCampaignInfo(c: CampaignRow, counters: CampaignCounters): CampaignInfo {
  return {
    id: c.id,
    project_id: c.project_id,
    name: c.name,
    agent_id: c.agent_id,
    status: c.status,
    from_numbers: c.from_numbers,
    max_concurrent_calls: c.max_concurrent_calls,
    timezone: c.timezone,
    calling_windows: c.calling_windows,
    retry: { max_attempts: c.max_attempts, min_spacing_seconds: c.retry_spacing_seconds, on: c.retry_on as CampaignInfo['retry']['on'] },
    max_duration_seconds: c.max_duration_seconds,
    record: c.record,
    store_transcript: c.store_transcript,
    counters,
    last_error: c.last_error,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
    finished_at: c.finished_at ? iso(c.finished_at) : null,
  };
}

const WAITING = new Set(['queued', 'retrying']);

export function toRowInfo(r: RowPageEntry, campaignZone: string): CampaignRowInfo {
  return {
    index: r.position,
    to: r.to_e164,
    timezone: r.timezone ?? campaignZone,
    state: r.state,
    attempts: r.attempts,
    next_attempt_at: WAITING.has(r.state) && r.next_attempt_at ? iso(r.next_attempt_at) : null,
    outcome: r.outcome,
    last_error: r.last_error,
    metadata: r.metadata,
    results: r.results.map((a) => ({ ...a, created_at: iso(a.created_at) })),
  };
}
