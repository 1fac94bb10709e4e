import { listUnfinishedCampaignIds } from '../db/repos/campaigns.js';
import type { AppContext } from '../shared/app-context.js';
import type { Clock } from '../shared/clock.js';
import { runPeriodically } from '../shared/periodic.js';
import { tickCampaign, type TickReport } from './tick.js';

// The campaign scheduler (worker role): every CAMPAIGN_TICK_MS, one tick of every unfinished
// campaign. Any number of workers may run it: a campaign is ticked by one worker at a time (its
// row lock, SKIP LOCKED), and a row attempt is admitted at most once (its primary key), so a
// worker killed mid-tick loses nothing and dials nothing twice: its lock dies with its
// connection and the next tick carries on from what was committed.

export interface CampaignSchedulerOptions {
  intervalMs?: number;
  /** The time windows and retry spacing are judged by (tests move it). */
  clock?: Clock;
  onTick?: (campaignId: string, report: TickReport) => void;
}

/** One pass over every unfinished campaign; returns the reports of those ticked here. */
export async function runCampaignsOnce(ctx: AppContext, clock: Clock = ctx.clock): Promise<Map<string, TickReport>> {
  const out = new Map<string, TickReport>();
  for (const id of await listUnfinishedCampaignIds(ctx.sql)) {
    // One campaign's failure (its agent's data, a bad row) must not hold up the others.
    const report = await tickCampaign(ctx, id, clock).catch((err: unknown) => {
      ctx.log.error({ err: { message: (err as Error).message }, campaign_id: id }, 'campaign tick failed');
      return null;
    });
    if (report) out.set(id, report);
  }
  return out;
}

/** Started by the worker role; returns its stop function (which waits for a pass in progress). */
export function startCampaignScheduler(ctx: AppContext, opts: CampaignSchedulerOptions = {}): () => Promise<void> {
  return runPeriodically(
    async () => {
      const reports = await runCampaignsOnce(ctx, opts.clock ?? ctx.clock);
      if (opts.onTick) for (const [id, r] of reports) opts.onTick(id, r);
    },
    opts.intervalMs ?? ctx.config.CAMPAIGN_TICK_MS,
    (err) => ctx.log.error({ err: { message: (err as Error).message } }, 'campaign tick failed'),
    { unref: true },
  );
}
