import type { AppContext } from '../shared/app-context.js';
import { textModelFor } from './analyse.js';
import { enqueueInsights, insightsQueue } from './queue.js';
import { failedInsights } from './store.js';
import { listPendingInsights, storeInsights } from '../db/repos/session-insights.js';
import { runPeriodically } from '../shared/periodic.js';

// Rebuilds insights jobs that Redis never got (a crash between the settlement commit and the
// enqueue) or lost. A session pending for longer than `graceMs` is queued again under its own
// job id, which is a no-op while its job still exists. When the transcript was not stored it
// travelled only in the job: with the job gone it cannot be analysed, and that is recorded.

export const PENDING_GRACE_MS = 60_000;
export const INSIGHTS_SWEEP_INTERVAL_MS = 30_000;
const BATCH = 100;

export interface InsightsSweepResult {
  requeued: number;
  failed: number;
}

export async function sweepInsightsOnce(ctx: AppContext, opts: { graceMs?: number } = {}): Promise<InsightsSweepResult> {
  const now = ctx.clock.now();
  const pending = await listPendingInsights(ctx.sql, new Date(now.getTime() - (opts.graceMs ?? PENDING_GRACE_MS)), BATCH);
  const result = { requeued: 0, failed: 0 };
  for (const p of pending) {
    if (p.transcript_stored) {
      await enqueueInsights(ctx, p.id);
      result.requeued++;
      continue;
    }
    if (await insightsQueue(ctx).getJob(p.id)) continue; // still queued, or retrying, with its transcript
    const target = textModelFor(p.pipeline_snapshot ?? {});
    const model = typeof target === 'string' ? 'none' : target.provider === 'local' ? 'echo' : target.model;
    const error = 'transcript unavailable: it was not stored and its analysis job was lost';
    const stored = await storeInsights(ctx.sql, p.id, failedInsights(model, error, now));
    if (stored) result.failed++;
  }
  return result;
}

/** Runs `sweepInsightsOnce` every `intervalMs` until the returned stop function is called. */
export function startInsightsSweeper(ctx: AppContext, opts: { intervalMs?: number; graceMs?: number } = {}): () => Promise<void> {
  return runPeriodically(
    async () => {
      const r = await sweepInsightsOnce(ctx, opts);
      if (r.requeued || r.failed) ctx.log.info(r, 'insights sweeper');
    },
    opts.intervalMs ?? INSIGHTS_SWEEP_INTERVAL_MS,
    (err) => ctx.log.warn({ err: { message: (err as Error).message } }, 'insights sweep failed'),
    { unref: true },
  );
}
