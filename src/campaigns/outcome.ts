import type { EndedRow } from '../db/repos/campaign-rows.js';

// What an ended attempt makes of its row: a completed session completes the row; a busy or
// unanswered one is tried again after the spacing while attempts remain (and the campaign
// retries that outcome); anything else fails the row with the session's end_reason.

export interface RetryRules {
  max_attempts: number;
  retry_on: string[];
  retry_spacing_seconds: number;
}

export interface RowSettlement {
  state: 'completed' | 'failed' | 'retrying' | 'canceled';
  outcome: string | null;
  nextAttemptAt: Date | null;
}

/** The session of an attempt vanished (its project data was deleted): nothing to retry. */
export const SESSION_GONE = 'session_missing';

export function settleAttempt(rules: RetryRules & { status?: string }, row: Pick<EndedRow, 'attempts' | 'status' | 'end_reason'>, now: Date): RowSettlement {
  if (row.status === null) return { state: 'failed', outcome: SESSION_GONE, nextAttemptAt: null };
  if (row.status === 'completed') return { state: 'completed', outcome: row.end_reason, nextAttemptAt: null };
  const reason = row.end_reason ?? 'unknown';
  if (rules.retry_on.includes(reason) && row.attempts < rules.max_attempts) {
    // A canceled campaign dials nothing more: a retry would leave the row (and the campaign) unfinished.
    if (rules.status === 'canceled') return { state: 'canceled', outcome: reason, nextAttemptAt: null };
    return { state: 'retrying', outcome: reason, nextAttemptAt: new Date(now.getTime() + rules.retry_spacing_seconds * 1000) };
  }
  return { state: 'failed', outcome: reason, nextAttemptAt: null };
}
