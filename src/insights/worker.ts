import type { AppContext } from '../shared/app-context.js';
import type { RegistryOptions } from '../providers/registry.js';
import { INSIGHTS_ATTEMPTS, insightsJobs, startWorkerWithSweeper } from '../queues/index.js';
import { analyseSession, RetryInsights, type AnalyseOutcome } from './analyse.js';
import { startInsightsSweeper } from './sweeper.js';

export interface InsightsWorkerOptions {
  /** Analyses in flight at once in this process (default 4: each is one LLM request). */
  concurrency?: number;
  /** Delay before the first retry of a provider failure, doubled for the next (default 5 s). */
  retryDelayMs?: number;
  /** Per-request LLM deadline (default 60 s). */
  llmTimeoutMs?: number;
  /** Run the pending-insights sweeper in this process (default true). */
  sweeper?: boolean;
  sweepIntervalMs?: number;
  /** A session pending this long is presumed to have lost its job (default 60 s). */
  pendingGraceMs?: number;
  registry?: RegistryOptions;
  /** Observes every job's outcome (tests, metrics). */
  onOutcome?: (sessionId: string, outcome: AnalyseOutcome | { kind: 'retry'; error: string }) => void;
}

/** Starts the BullMQ insights worker (and its sweeper); resolves to a stop function. */
export async function startInsightsWorker(ctx: AppContext, opts: InsightsWorkerOptions = {}): Promise<() => Promise<void>> {
  const retryDelayMs = opts.retryDelayMs ?? 5_000;
  const stopSweeper =
    opts.sweeper === false ? async () => {} : startInsightsSweeper(ctx, { intervalMs: opts.sweepIntervalMs, graceMs: opts.pendingGraceMs });

  return startWorkerWithSweeper(ctx, stopSweeper, {
    queue: insightsJobs,
    concurrency: opts.concurrency ?? 4,
    failedMessage: 'insights job attempt failed',
    settings: { backoffStrategy: (attemptsMade: number) => retryDelayMs * 2 ** Math.max(0, attemptsMade - 1) },
    process: async (data, job) => {
      const attempts = job.opts.attempts ?? INSIGHTS_ATTEMPTS;
      try {
        const outcome = await analyseSession(ctx, data.sessionId, {
          transcript: data.transcript,
          finalAttempt: job.attemptsMade + 1 >= attempts,
          registry: opts.registry,
          llmTimeoutMs: opts.llmTimeoutMs,
        });
        opts.onOutcome?.(data.sessionId, outcome);
      } catch (err) {
        if (err instanceof RetryInsights) opts.onOutcome?.(data.sessionId, { kind: 'retry', error: err.message });
        throw err; // BullMQ retries with the backoff above; the last attempt stores `failed` itself
      }
    },
  });
}
