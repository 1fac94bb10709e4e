import { CreateOutboundVoiceSessionBody } from '../contract/voice-sessions.js';
import type { CampaignRow } from '../db/repos/campaigns.js';
import { AttemptTaken, recordAttempt, type DueRow } from '../db/repos/campaign-rows.js';
import { admitOutbound } from '../telephony/outbound.js';
import type { AppContext } from '../shared/app-context.js';
import { AppError } from '../shared/errors.js';
import { isUniqueViolation } from '../shared/pg-errors.js';

// One attempt of one campaign row: an ordinary outbound admission (agent, variables, `from`,
// wallet hold, concurrency slot, dial job) whose transaction also records the attempt. The
// attempt's key is (row, attempt number): recorded with the session or not at all, so a row is
// dialled once per attempt whatever dies in between.

export type DialRowResult =
  | { kind: 'admitted'; sessionId: string }
  /** Already admitted by someone else (never expected while the campaign lock is held). */
  | { kind: 'taken' }
  /** Wallet, concurrency or an unavailable dependency: the row stays queued; stop dialling this tick. */
  | { kind: 'wait'; error: string }
  /** The campaign itself cannot dial (agent gone or inactive, a `from` number no longer outbound). */
  | { kind: 'pause'; error: string }
  /** This row cannot be dialled (its variables no longer fit the agent). */
  | { kind: 'rejected'; error: string };

/** The pool's numbers in turn: consecutive rows and a row's retries use different numbers. */
export function fromFor(campaign: Pick<CampaignRow, 'from_numbers'>, row: Pick<DueRow, 'position' | 'attempts'>): string {
  const pool = campaign.from_numbers;
  return pool[(row.position + row.attempts) % pool.length];
}

const detailOf = (err: AppError) =>
  typeof err.detail === 'string' ? err.detail : err.detail.map((f) => `${f.loc.join('.')}: ${f.msg}`).join('; ');

export async function dialRow(ctx: AppContext, campaign: CampaignRow, row: DueRow, now: Date): Promise<DialRowResult> {
  const attempt = row.attempts + 1;
  const from = fromFor(campaign, row);
  const body = CreateOutboundVoiceSessionBody.safeParse({
    agent_id: campaign.agent_id,
    from,
    to: row.to_e164,
    variables: row.variables,
    // The session (and its call.* events) says which campaign row and attempt it is.
    metadata: { ...(row.metadata ?? {}), campaign_id: campaign.id, campaign_row: row.position, campaign_attempt: attempt },
    max_duration_seconds: campaign.max_duration_seconds,
    record: campaign.record,
    store_transcript: campaign.store_transcript,
  });
  if (!body.success) return { kind: 'rejected', error: body.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') };

  try {
    const { session } = await admitOutbound(ctx, campaign.project_id, body.data, {
      finish: (tx, s) => recordAttempt(tx, { rowId: row.id, attempt, sessionId: s.id, from, now }),
    });
    return { kind: 'admitted', sessionId: session.id };
  } catch (err) {
    if (err instanceof AttemptTaken || isUniqueViolation(err)) return { kind: 'taken' };
    if (!(err instanceof AppError)) throw err;
    const error = detailOf(err);
    if (err.status === 402 || err.status === 429 || err.status === 503) return { kind: 'wait', error };
    if (err.status === 404 || err.status === 409) return { kind: 'pause', error };
    if (err.status === 422 && Array.isArray(err.detail) && err.detail.some((f) => f.loc[1] === 'from')) return { kind: 'pause', error: `${from}: ${error}` };
    if (err.status === 422) return { kind: 'rejected', error };
    throw err;
  }
}
