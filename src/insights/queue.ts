import type { Queue } from 'bullmq';
import type { AppContext } from '../shared/app-context.js';
import type { TranscriptEntry } from '../contract/events.js';
import { addWithinTimeout, insightsJobs, producerQueue, type InsightsJobData } from '../queues/index.js';

// The insights queue (defined in queues/jobs.ts). One job per session, its id the session id, so
// a re-queue by the sweeper collapses into the job that is already there.
// voice_sessions.insights_pending_since is the record of the work; a lost job is rebuilt.

export { INSIGHTS_QUEUE, INSIGHTS_JOB, INSIGHTS_ATTEMPTS, INSIGHTS_BACKOFF, InsightsJobData } from '../queues/index.js';

/** The producer side of the queue for this context (it shares `ctx.redis`, closed with it). */
export function insightsQueue(ctx: AppContext): Queue {
  return producerQueue(ctx, insightsJobs);
}

export async function enqueueInsights(ctx: AppContext, sessionId: string, transcript?: readonly TranscriptEntry[] | null): Promise<void> {
  const data: InsightsJobData = transcript ? { sessionId, transcript: [...transcript] } : { sessionId };
  await insightsQueue(ctx).add(insightsJobs.job, data, { jobId: sessionId });
}

/**
 * Queues a session's analysis after the settlement transaction committed. Never throws and
 * never waits long on an unreachable Redis: the sweeper re-queues what is not queued here.
 */
export async function kickInsights(ctx: AppContext, sessionId: string, transcript?: readonly TranscriptEntry[] | null, timeoutMs = 2000): Promise<void> {
  await addWithinTimeout(ctx, () => enqueueInsights(ctx, sessionId, transcript), timeoutMs, {
    fields: { session_id: sessionId },
    message: 'insights kick failed; the sweeper will queue it',
  });
}
