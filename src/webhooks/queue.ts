import type { Queue } from 'bullmq';
import type { AppContext } from '../shared/app-context.js';
import type { DueDelivery } from '../db/repos/webhook-deliveries.js';
import { addWithinTimeout, deliveryJobs, producerQueue, type DeliveryJobData } from '../queues/index.js';

// The webhook delivery queue (defined in queues/jobs.ts), used by producers (routes,
// emitCallEvent callers, the sweeper) and by the worker's retry re-enqueue.

export { bullPrefix, DELIVERY_QUEUE, DELIVERY_JOB, DeliveryJobData } from '../queues/index.js';

/** One job per attempt; BullMQ ignores an add whose id already exists, so kicks are idempotent. */
export function deliveryJobId(deliveryId: string, attempts: number): string {
  return `${deliveryId}-a${attempts}`;
}

/** The producer side of the queue for this context (it shares `ctx.redis`, closed with it). */
export function deliveryQueue(ctx: AppContext): Queue {
  return producerQueue(ctx, deliveryJobs);
}

export type { DueDelivery };

export async function enqueueDeliveries(ctx: AppContext, due: readonly DueDelivery[]): Promise<void> {
  if (due.length === 0) return;
  const now = ctx.clock.now().getTime();
  await deliveryQueue(ctx).addBulk(
    due.map((d) => ({
      name: deliveryJobs.job,
      data: { deliveryId: d.id } satisfies DeliveryJobData,
      opts: { jobId: deliveryJobId(d.id, d.attempts), delay: Math.max(0, d.nextAttemptAt.getTime() - now) },
    })),
  );
}

/**
 * Queues deliveries after the transaction that recorded them has committed. Never throws and
 * never waits on an unreachable Redis for long: whatever is not queued here the sweeper queues.
 */
export async function kickDeliveries(ctx: AppContext, due: readonly DueDelivery[] | { deliveries: readonly DueDelivery[] }, timeoutMs = 2000): Promise<void> {
  const list = 'deliveries' in due ? due.deliveries : due;
  if (list.length === 0) return;
  await addWithinTimeout(ctx, () => enqueueDeliveries(ctx, list), timeoutMs, {
    fields: { count: list.length },
    message: 'webhook kick failed; the sweeper will queue these deliveries',
  });
}
