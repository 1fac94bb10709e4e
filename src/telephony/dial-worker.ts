import { UnrecoverableError, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import type { AppContext } from '../shared/app-context.js';
import { bullPrefix } from '../webhooks/queue.js';
import { DialRetry, processDial, type DialOutcome } from './dial.js';
import { DIAL_QUEUE, DialJobData } from './dial-queue.js';
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
  const redis = new Redis(ctx.config.REDIS_URL, { maxRetriesPerRequest: null });
  redis.on('error', (err: Error) => ctx.log.warn({ err: { message: err.message } }, 'dial worker redis error'));
  const worker = new Worker(
    DIAL_QUEUE,
    async (job) => {
      const parsed = DialJobData.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError('malformed dial job');
      const { sessionId } = parsed.data;
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
    { connection: redis, prefix: bullPrefix(ctx), concurrency: opts.concurrency ?? 16, removeOnComplete: { count: 0 }, removeOnFail: { count: 0 } },
  );
  worker.on('error', (err) => ctx.log.warn({ err: { message: err.message } }, 'dial worker error'));
  const stopSweeper = opts.sweeper === false ? async () => {} : startTelephonySweeper(ctx, opts.sweepIntervalMs);
  await worker.waitUntilReady();
  return async () => {
    await stopSweeper();
    await worker.close();
    await redis.quit().catch(() => redis.disconnect());
  };
}
