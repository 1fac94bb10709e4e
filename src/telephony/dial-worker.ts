import type { AppContext } from '../shared/app-context.js';
import { dialJobs, startWorkerWithSweeper } from '../queues/index.js';
import { DialRetry, processDial, type DialOutcome } from './dial.js';
import { startTelephonySweeper } from './sweeper.js';

export interface TelephonyWorkerOptions {
  /** Dials in flight at once in this process (each waits on Twilio's REST API). */
  concurrency?: number;
  /** Run the telephony sweeper in this process (default true). */
  sweeper?: boolean;
  sweepIntervalMs?: number;
  /** Observes every dial's outcome (tests, metrics). */
  onOutcome?: (sessionId: string, outcome: DialOutcome) => void;
}

/** The outbound dial worker (and the telephony sweeper); resolves to a stop function. */
export async function startTelephonyWorkers(ctx: AppContext, opts: TelephonyWorkerOptions = {}): Promise<() => Promise<void>> {
  const stopSweeper = opts.sweeper === false ? async () => {} : startTelephonySweeper(ctx, opts.sweepIntervalMs);
  return startWorkerWithSweeper(ctx, stopSweeper, {
    queue: dialJobs,
    concurrency: opts.concurrency ?? 16,
    process: async ({ sessionId }, job) => {
      const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      try {
        const outcome = await processDial(ctx, sessionId, { lastAttempt });
        opts.onOutcome?.(sessionId, outcome);
      } catch (err) {
        if (err instanceof DialRetry) throw err; // BullMQ retries with backoff
        // Anything else (database down, ...) before or after the claim: a retry is safe, because a
        // claimed dial is never requested again.
        ctx.log.warn({ err: { message: (err as Error).message }, session_id: sessionId }, 'dial job failed');
        throw err;
      }
    },
  });
}
