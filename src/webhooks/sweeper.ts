import type { AppContext } from '../shared/app-context.js';
import { expireLeases, overdueDeliveries } from '../db/repos/webhook-deliveries.js';
import { enqueueDeliveries } from './queue.js';
import { runPeriodically } from '../shared/periodic.js';

// Postgres is the system of record, Redis only a cache of work. The sweeper rebuilds what
// Redis lost or never got: deliveries recorded by an API that died before queueing them,
// jobs lost with a Redis restart, and attempts whose worker died mid-delivery (lease expired).

export interface SweeperOptions {
  intervalMs: number;
  /** A pending delivery due this long without being taken is presumed to have no job. */
  overdueGraceMs: number;
}

export async function sweepOnce(ctx: AppContext, opts: Pick<SweeperOptions, 'overdueGraceMs'>): Promise<number> {
  const expired = await expireLeases(ctx);
  const overdue = await overdueDeliveries(ctx, opts.overdueGraceMs);
  const due = [...expired, ...overdue];
  await enqueueDeliveries(ctx, due);
  return due.length;
}

/** Runs `sweepOnce` every `intervalMs` until the returned stop function is called. */
export function startSweeper(ctx: AppContext, opts: SweeperOptions): () => Promise<void> {
  return runPeriodically(
    async () => {
      const n = await sweepOnce(ctx, opts);
      if (n > 0) ctx.log.debug({ count: n }, 'webhook sweeper queued deliveries');
    },
    opts.intervalMs,
    (err) => ctx.log.warn({ err: { message: (err as Error).message } }, 'webhook sweep failed'),
  );
}
