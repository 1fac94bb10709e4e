import { Queue } from 'bullmq';
import { z } from 'zod';
import type { AppContext } from '../shared/app-context.js';
import type { DueDelivery } from '../db/repos/webhook-deliveries.js';

// The webhook delivery queue, shared by producers (routes, emitCallEvent callers, the sweeper)
// and the worker. A job carries a delivery id and nothing else: no secret, no body, no URL.
// Postgres holds the delivery state; a lost job is rebuilt by the sweeper.

export const DELIVERY_QUEUE = 'webhook-deliveries';
export const DELIVERY_JOB = 'deliver';

export const DeliveryJobData = z.strictObject({ deliveryId: z.uuid() });
export type DeliveryJobData = z.infer<typeof DeliveryJobData>;

/** One job per attempt; BullMQ ignores an add whose id already exists, so kicks are idempotent. */
export function deliveryJobId(deliveryId: string, attempts: number): string {
  return `${deliveryId}-a${attempts}`;
}

export function bullPrefix(ctx: AppContext): string {
  return `${ctx.redisPrefix}bull`;
}

const producers = new WeakMap<AppContext, Queue>();

/** The producer side of the queue for this context (it shares `ctx.redis`, closed with it). */
export function deliveryQueue(ctx: AppContext): Queue {
  let queue = producers.get(ctx);
  if (!queue) {
    queue = new Queue(DELIVERY_QUEUE, {
      connection: ctx.redis,
      prefix: bullPrefix(ctx),
      // Finished jobs are dropped so that the sweeper can always re-add a job id for unfinished work.
      defaultJobOptions: { removeOnComplete: true, removeOnFail: true },
    });
    queue.on('error', (err) => ctx.log.warn({ err: { message: err.message } }, 'webhook queue error'));
    producers.set(ctx, queue);
  }
  return queue;
}

export type { DueDelivery };

export async function enqueueDeliveries(ctx: AppContext, due: readonly DueDelivery[]): Promise<void> {
  if (due.length === 0) return;
  const now = ctx.clock.now().getTime();
  await deliveryQueue(ctx).addBulk(
    due.map((d) => ({
      name: DELIVERY_JOB,
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
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([enqueueDeliveries(ctx, list), timeout]);
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message }, count: list.length }, 'webhook kick failed; the sweeper will queue these deliveries');
  } finally {
    clearTimeout(timer);
  }
}
