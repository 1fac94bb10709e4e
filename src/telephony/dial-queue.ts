import type { Queue } from 'bullmq';
import type { AppContext } from '../shared/app-context.js';
import { addWithinTimeout, dialJobs, producerQueue, type DialJobData } from '../queues/index.js';

// The outbound dial queue (defined in queues/jobs.ts). jobId = session id, so a second add of
// the same call while its job exists is ignored.

export { DIAL_QUEUE, DIAL_JOB, DIAL_ATTEMPTS, DialJobData } from '../queues/index.js';

export function dialQueue(ctx: AppContext): Queue {
  return producerQueue(ctx, dialJobs);
}

/**
 * Queues the dial of an admitted outbound call. Never throws and never waits long on an
 * unreachable Redis: a call not queued here is queued again by the telephony sweeper.
 */
export async function kickDial(ctx: AppContext, sessionId: string, timeoutMs = 2000): Promise<void> {
  await addWithinTimeout(ctx, () => dialQueue(ctx).add(dialJobs.job, { sessionId } satisfies DialJobData, { jobId: sessionId }), timeoutMs, {
    fields: { session_id: sessionId },
    message: 'dial not queued; the telephony sweeper will queue it',
  });
}
