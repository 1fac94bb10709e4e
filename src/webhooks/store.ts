import type { AppContext } from '../shared/app-context.js';
import {
  claimDeliveries,
  explainMiss,
  markDead,
  markDeliveredMany,
  markRetry,
  type ClaimedDelivery,
  type ClaimMiss,
} from '../db/repos/webhook-deliveries.js';

// Where the processor reads and records delivery state. `directStore` issues one statement
// per call; `batchingStore` coalesces the claims and successes of concurrent jobs that arrive
// in the same event-loop turn into one statement each (the common, hot transitions).

export interface DeliveryStore {
  claim(id: string, leaseMs: number): Promise<ClaimedDelivery | null>;
  explainMiss(id: string): Promise<ClaimMiss>;
  delivered(id: string, attempt: number, httpStatus: number): Promise<boolean>;
  retry(id: string, attempt: number, nextAttemptAt: Date, error: string, httpStatus: number | null): Promise<boolean>;
  dead(id: string, attempt: number, error: string, httpStatus: number | null): Promise<boolean>;
}

export function directStore(ctx: AppContext): DeliveryStore {
  return {
    claim: async (id, leaseMs) => (await claimDeliveries(ctx, [id], leaseMs))[0] ?? null,
    explainMiss: (id) => explainMiss(ctx, id),
    delivered: async (id, attempt, httpStatus) => (await markDeliveredMany(ctx, [{ id, attempt, httpStatus }])).has(id),
    retry: (id, attempt, next, error, status) => markRetry(ctx, id, attempt, next, error, status),
    dead: (id, attempt, error, status) => markDead(ctx, id, attempt, error, status),
  };
}

/**
 * Collects calls for up to `windowMs` (or one event-loop turn when 0), at most `maxBatch`, and
 * runs them as one batch: fewer statements and socket writes per delivery under load, for at
 * most `windowMs` of added latency.
 */
function batcher<I, O>(run: (items: I[]) => Promise<O[]>, windowMs: number, maxBatch = 128): (item: I) => Promise<O> {
  let pending: { item: I; resolve: (o: O) => void; reject: (e: unknown) => void }[] = [];
  let timer: NodeJS.Timeout | NodeJS.Immediate | null = null;
  const flush = () => {
    if (timer && windowMs > 0) clearTimeout(timer as NodeJS.Timeout);
    else if (timer) clearImmediate(timer as NodeJS.Immediate);
    timer = null;
    const batch = pending;
    pending = [];
    run(batch.map((b) => b.item)).then(
      (out) => batch.forEach((b, i) => b.resolve(out[i])),
      (err) => batch.forEach((b) => b.reject(err)),
    );
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      pending.push({ item, resolve, reject });
      if (pending.length >= maxBatch) flush();
      else if (!timer) timer = windowMs > 0 ? setTimeout(flush, windowMs) : setImmediate(flush);
    });
}

export function batchingStore(ctx: AppContext, windowMs = 0): DeliveryStore {
  const direct = directStore(ctx);
  const claim = batcher<{ id: string; leaseMs: number }, ClaimedDelivery | null>(async (items) => {
    const rows = await claimDeliveries(ctx, [...new Set(items.map((i) => i.id))], items[0].leaseMs);
    const byId = new Map(rows.map((r) => [r.id, r]));
    // The same id twice in one batch (duplicate jobs): only the first caller gets the claim.
    return items.map((i) => {
      const row = byId.get(i.id) ?? null;
      byId.delete(i.id);
      return row;
    });
  }, windowMs);
  const delivered = batcher<{ id: string; attempt: number; httpStatus: number }, boolean>(async (items) => {
    const done = await markDeliveredMany(ctx, items);
    return items.map((i) => done.has(i.id));
  }, windowMs);
  return {
    ...direct,
    claim: (id, leaseMs) => claim({ id, leaseMs }),
    delivered: (id, attempt, httpStatus) => delivered({ id, attempt, httpStatus }),
  };
}
