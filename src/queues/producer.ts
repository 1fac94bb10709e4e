import { Queue } from 'bullmq';
import type { AppContext } from '../shared/app-context.js';
import type { QueueDef } from './jobs.js';
import { bullPrefix } from './prefix.js';

const producers = new WeakMap<AppContext, Map<string, Queue>>();

/**
 * The producer side of a queue for this context, made once per context and queue name. It
 * shares `ctx.redis` (closed with it) and gives every job the queue's default options.
 */
export function producerQueue<Data>(ctx: AppContext, def: QueueDef<Data>): Queue {
  let byName = producers.get(ctx);
  if (!byName) {
    byName = new Map();
    producers.set(ctx, byName);
  }
  let queue = byName.get(def.name);
  if (!queue) {
    queue = new Queue(def.name, { connection: ctx.redis, prefix: bullPrefix(ctx), defaultJobOptions: { ...def.defaultJobOptions } });
    queue.on('error', (err) => ctx.log.warn({ err: { message: err.message } }, `${def.label} queue error`));
    byName.set(def.name, queue);
  }
  return queue;
}
