import type { AppContext } from '../shared/app-context.js';
import { runPeriodically } from '../shared/periodic.js';
import { deleteExpiredTranscriptRows } from '../db/repos/session-transcripts.js';

// Deletes stored transcripts past their expires_at, a batch at a time so that one sweep never
// holds long locks or a huge transaction. Time comes from ctx.clock (tests move it).

export const TRANSCRIPT_SWEEP_INTERVAL_MS = 60_000;

export interface TranscriptSweepOptions {
  /** Rows per delete statement (default 1000). */
  batchSize?: number;
  /** Most batches in one sweep (default 100); the next sweep carries on. */
  maxBatches?: number;
}

/** Deletes expired transcript rows; returns how many were deleted. */
export async function sweepExpiredTranscripts(ctx: AppContext, opts: TranscriptSweepOptions = {}): Promise<number> {
  const batchSize = opts.batchSize ?? 1_000;
  const maxBatches = opts.maxBatches ?? 100;
  const now = ctx.clock.now();
  let deleted = 0;
  for (let i = 0; i < maxBatches; i++) {
    const count = await deleteExpiredTranscriptRows(ctx.sql, now, batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return deleted;
}

/** Started by the worker role: a sweep at once, then every `intervalMs`. Returns its stop function. */
export function startTranscriptSweeper(ctx: AppContext, opts: TranscriptSweepOptions & { intervalMs?: number } = {}): () => Promise<void> {
  return runPeriodically(
    async () => {
      const n = await sweepExpiredTranscripts(ctx, opts);
      if (n > 0) ctx.log.info({ count: n }, 'expired transcript rows deleted');
    },
    opts.intervalMs ?? TRANSCRIPT_SWEEP_INTERVAL_MS,
    (err) => ctx.log.warn({ err: { message: (err as Error).message } }, 'transcript retention sweep failed'),
    { unref: true },
  );
}
