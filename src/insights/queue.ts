import { Queue } from 'bullmq';
import { z } from 'zod';
import type { AppContext } from '../shared/app-context.js';
import type { TranscriptEntry } from '../contract/events.js';
import { bullPrefix } from '../webhooks/queue.js';

// The insights queue. One job per session, its id the session id, so a re-queue by the
// sweeper collapses into the job that is already there. The job carries the session id and,
// only when the transcript was not stored, the transcript itself (never a credential).
// voice_sessions.insights_pending_since is the record of the work; a lost job is rebuilt.

export const INSIGHTS_QUEUE = 'session-insights';
export const INSIGHTS_JOB = 'analyse';
/** Tries per job (the first plus two retries) for provider failures. */
export const INSIGHTS_ATTEMPTS = 3;
/** The worker's backoff strategy decides the delay (see worker.ts). */
export const INSIGHTS_BACKOFF = { type: 'insights' } as const;

const Entry = z.object({ role: z.string(), text: z.string(), start_ms: z.number(), end_ms: z.number() });
export const InsightsJobData = z.strictObject({ sessionId: z.uuid(), transcript: z.array(Entry).optional() });
export type InsightsJobData = z.infer<typeof InsightsJobData>;

const producers = new WeakMap<AppContext, Queue>();

/** The producer side of the queue for this context (it shares `ctx.redis`, closed with it). */
export function insightsQueue(ctx: AppContext): Queue {
  let queue = producers.get(ctx);
  if (!queue) {
    queue = new Queue(INSIGHTS_QUEUE, {
      connection: ctx.redis,
      prefix: bullPrefix(ctx),
      // Finished jobs are dropped so that the sweeper can always re-add a session's job id.
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true, attempts: INSIGHTS_ATTEMPTS, backoff: INSIGHTS_BACKOFF },
    });
    queue.on('error', (err) => ctx.log.warn({ err: { message: err.message } }, 'insights queue error'));
    producers.set(ctx, queue);
  }
  return queue;
}

export async function enqueueInsights(ctx: AppContext, sessionId: string, transcript?: readonly TranscriptEntry[] | null): Promise<void> {
  const data: InsightsJobData = transcript ? { sessionId, transcript: [...transcript] } : { sessionId };
  await insightsQueue(ctx).add(INSIGHTS_JOB, data, { jobId: sessionId });
}

/**
 * Queues a session's analysis after the settlement transaction committed. Never throws and
 * never waits long on an unreachable Redis: the sweeper re-queues what is not queued here.
 */
export async function kickInsights(ctx: AppContext, sessionId: string, transcript?: readonly TranscriptEntry[] | null, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([enqueueInsights(ctx, sessionId, transcript), timeout]);
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message }, session_id: sessionId }, 'insights kick failed; the sweeper will queue it');
  } finally {
    clearTimeout(timer);
  }
}
