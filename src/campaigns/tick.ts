import {
  countLiveRows,
  countUnfinishedRows,
  deferRows,
  listDueRows,
  listEndedRows,
  rejectRow,
  settleRow,
} from '../db/repos/campaign-rows.js';
import { countCampaignRows, finishCampaign, lockCampaignForTick, setCampaignError, type CampaignRow } from '../db/repos/campaigns.js';
import type { AppContext } from '../shared/app-context.js';
import type { Clock } from '../shared/clock.js';
import type { Tx } from '../shared/sql.js';
import { kickDeliveries, type DueDelivery } from '../webhooks/index.js';
import { dialRow } from './dial-row.js';
import { emitCampaignCompleted } from './events.js';
import { settleAttempt } from './outcome.js';
import { toCampaignInfo } from './present.js';
import { inWindow, nextOpening } from './windows.js';

// One tick of one campaign. The tick's transaction holds the campaign's row lock (claimed with
// SKIP LOCKED: a campaign another worker is ticking is skipped) and writes only the campaign
// row and the outbox; the rows change through the pool, each change committed at once, so the
// admissions (their own transactions) see them. In order:
//   1. settle in-progress rows whose session ended (completed, retry later, failed);
//   2. running campaigns: dial due rows inside their calling window while fewer than
//      `max_concurrent_calls` rows are in progress; push rows outside it to their next opening;
//   3. no row left to dial or live: finish the campaign and emit campaign.completed.

export interface TickReport {
  settled: number;
  dialled: number;
  deferred: number;
  finished: boolean;
}

/** Rows looked at per query while filling free capacity (rows outside their window are skipped). */
const SCAN = 200;
/** A row whose zone has no window opening within 8 days is looked at again a day later. */
const NO_OPENING_RETRY_MS = 86_400_000;

async function settleEnded(ctx: AppContext, c: CampaignRow, now: Date): Promise<number> {
  const ended = await listEndedRows(ctx.sql, c.id);
  for (const row of ended) {
    const s = settleAttempt(c, row, now);
    await settleRow(ctx.sql, { id: row.id, attempt: row.attempts, state: s.state, outcome: s.outcome, nextAttemptAt: s.nextAttemptAt, now });
  }
  return ended.length;
}

async function dialDue(ctx: AppContext, tx: Tx, c: CampaignRow, now: Date): Promise<{ dialled: number; deferred: number }> {
  let free = c.max_concurrent_calls - (await countLiveRows(ctx.sql, c.id));
  let dialled = 0;
  let deferred = 0;
  let refusal: { kind: 'wait' | 'pause'; error: string } | null = null;
  while (free > 0 && !refusal) {
    const limit = Math.max(free, SCAN);
    const due = await listDueRows(ctx.sql, c.id, now, limit);
    const later: { id: string; at: Date }[] = [];
    let moved = 0;
    for (const row of due) {
      if (free <= 0 || refusal) break;
      const zone = row.timezone ?? c.timezone;
      if (!inWindow(c.calling_windows, zone, now)) {
        later.push({ id: row.id, at: nextOpening(c.calling_windows, zone, now) ?? new Date(now.getTime() + NO_OPENING_RETRY_MS) });
        continue;
      }
      const r = await dialRow(ctx, c, row, now);
      if (r.kind === 'admitted') {
        free--;
        dialled++;
        moved++;
      } else if (r.kind === 'rejected') {
        await rejectRow(ctx.sql, row.id, r.error, now);
        moved++;
      } else if (r.kind !== 'taken') {
        // 402 / 429 / 503 leave the row queued for a later tick; a campaign-wide refusal pauses it.
        refusal = r;
      }
    }
    await deferRows(ctx.sql, later, now);
    deferred += later.length;
    moved += later.length;
    if (due.length < limit || moved === 0) break;
  }
  if (refusal?.kind === 'pause') {
    await setCampaignError(tx, c.id, refusal.error, now, true);
    ctx.log.warn({ campaign_id: c.id, project_id: c.project_id, error: refusal.error }, 'campaign paused: it cannot dial');
  } else if (refusal) {
    await setCampaignError(tx, c.id, refusal.error, now);
  } else if (dialled > 0 && c.last_error !== null) {
    await setCampaignError(tx, c.id, null, now);
  }
  return { dialled, deferred };
}

/** Ticks campaign `id` once; null when another worker holds it or it is finished. */
export async function tickCampaign(ctx: AppContext, id: string, clock: Clock = ctx.clock): Promise<TickReport | null> {
  let due: DueDelivery[] = [];
  const report = await ctx.sql.begin(async (tx) => {
    const c = await lockCampaignForTick(tx, id);
    if (!c) return null;
    const now = clock.now();
    const settled = await settleEnded(ctx, c, now);
    const { dialled, deferred } = c.status === 'running' ? await dialDue(ctx, tx, c, now) : { dialled: 0, deferred: 0 };
    let finished = false;
    if ((await countUnfinishedRows(ctx.sql, c.id)) === 0) {
      const done = await finishCampaign(tx, c.id, now);
      if (done) {
        const counters = (await countCampaignRows(ctx.sql, [c.id])).get(c.id)!;
        due = await emitCampaignCompleted(tx, ctx, toCampaignInfo(done, counters));
        finished = true;
        ctx.log.info({ campaign_id: c.id, project_id: c.project_id, status: done.status, ...counters }, 'campaign finished');
      }
    }
    return { settled, dialled, deferred, finished };
  });
  if (due.length) await kickDeliveries(ctx, due);
  return report;
}
