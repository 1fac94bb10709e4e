import { Queue } from 'bullmq';
import { z } from 'zod';
import type { AppContext } from '../shared/app-context.js';
import { bullPrefix } from '../webhooks/queue.js';

// The outbound dial queue. A job carries the session id and nothing else: the numbers, the
// carrier and its credentials are read from Postgres by the worker that places the call.
// jobId = session id, so a second add of the same call while its job exists is ignored.

export const DIAL_QUEUE = 'outbound-dials';
export const DIAL_JOB = 'dial';
/** Only a 429 from Twilio is retried (it proves no call was created); see dial.ts. */
export const DIAL_ATTEMPTS = 4;

export const DialJobData = z.strictObject({ sessionId: z.uuid() });
export type DialJobData = z.infer<typeof DialJobData>;

const producers = new WeakMap<AppContext, Queue>();

export function dialQueue(ctx: AppContext): Queue {
  let queue = producers.get(ctx);
  if (!queue) {
    queue = new Queue(DIAL_QUEUE, {
      connection: ctx.redis,
      prefix: bullPrefix(ctx),
      defaultJobOptions: {
        attempts: DIAL_ATTEMPTS,
        backoff: { type: 'exponential', delay: 2000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    queue.on('error', (err) => ctx.log.warn({ err: { message: err.message } }, 'dial queue error'));
    producers.set(ctx, queue);
  }
  return queue;
}

/**
 * Queues the dial of an admitted outbound call. Never throws and never waits long on an
 * unreachable Redis: a call not queued here is queued again by the telephony sweeper.
 */
export async function kickDial(ctx: AppContext, sessionId: string, timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([dialQueue(ctx).add(DIAL_JOB, { sessionId } satisfies DialJobData, { jobId: sessionId }), timeout]);
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message }, session_id: sessionId }, 'dial not queued; the telephony sweeper will queue it');
  } finally {
    clearTimeout(timer);
  }
}
