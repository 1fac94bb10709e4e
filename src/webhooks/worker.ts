import postgres from 'postgres';
import type { AppContext } from '../shared/app-context.js';
import type { Sql } from '../shared/sql.js';
import { processDelivery, DELIVERY_TIMEOUT_MS, type Outcome, type ProcessorDeps } from './processor.js';
import { deliveryJobs, startWorkerWithSweeper } from '../queues/index.js';
import { enqueueDeliveries } from './queue.js';
import { createSender } from './sender.js';
import type { Resolver } from '../shared/net/address-policy.js';
import { batchingStore } from './store.js';
import { startSweeper } from './sweeper.js';
import { countWebhookAttempt } from '../metrics/worker.js';

export interface WebhookWorkerOptions {
  /** Deliveries in flight at once in this process (default 64: most of an attempt is waiting on the network). */
  concurrency?: number;
  /** Per-attempt HTTP deadline (default 15 s; the contract's). */
  timeoutMs?: number;
  /** Lease on a claimed attempt; must exceed timeoutMs (default timeoutMs + 15 s). */
  leaseMs?: number;
  /** Run the sweeper in this process (default true). */
  sweeper?: boolean;
  sweepIntervalMs?: number;
  overdueGraceMs?: number;
  /** Observes every attempt's outcome (tests, metrics). */
  onOutcome?: (deliveryId: string, outcome: Outcome) => void;
  /** How long claims and successes wait to be written together (default 1 ms at concurrency ≥ 8, else 0 = one loop turn). */
  batchWindowMs?: number;
  /** Name resolution for deliveries (default: the system resolver); every answer is checked. */
  resolve?: Resolver;
}

const SECRET_CACHE_MAX = 10_000;

/**
 * The worker's own pool. Delivery state writes use asynchronous commit: a database crash may
 * forget the last moments of outcomes, which can only cause a resend with the same webhook-id
 * (at least once, as the contract promises). The outbox itself is written durably by callers.
 */
function workerSql(ctx: AppContext): Sql {
  return postgres(ctx.config.DATABASE_URL, {
    max: 4,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    connection: { application_name: 'voice-agent-webhooks', synchronous_commit: 'off' },
  });
}

/** Starts the BullMQ delivery worker (and the sweeper); resolves to a stop function. */
export async function startWebhookWorkers(ctx: AppContext, opts: WebhookWorkerOptions = {}): Promise<() => Promise<void>> {
  const timeoutMs = opts.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  const sender = createSender({ allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, resolve: opts.resolve });
  // Keyed by the sealed value: rotating a secret seals a new value, so it is never served stale.
  const secrets = new Map<string, string>();
  const sql = workerSql(ctx);
  const wctx: AppContext = { ...ctx, sql };
  const deps: ProcessorDeps = {
    ctx: wctx,
    sender,
    // Measured (bench:webhooks): a 1 ms window halves the CPU per delivery at concurrency 16,
    // but at low concurrency there is too little to batch and the wait only adds latency.
    store: batchingStore(wctx, opts.batchWindowMs ?? ((opts.concurrency ?? 64) >= 8 ? 1 : 0)),
    timeoutMs,
    leaseMs: opts.leaseMs ?? timeoutMs + 15_000,
    openSecret: (sealed, aad) => {
      const cacheKey = `${aad}|${sealed}`;
      let plain = secrets.get(cacheKey);
      if (plain === undefined) {
        plain = ctx.keyring.decrypt(sealed, aad);
        if (secrets.size >= SECRET_CACHE_MAX) secrets.clear();
        secrets.set(cacheKey, plain);
      }
      return plain;
    },
  };

  const stopSweeper =
    opts.sweeper === false
      ? async () => {}
      : startSweeper(ctx, { intervalMs: opts.sweepIntervalMs ?? 1_000, overdueGraceMs: opts.overdueGraceMs ?? 5_000 });

  const stopWorker = await startWorkerWithSweeper(ctx, stopSweeper, {
    queue: deliveryJobs,
    concurrency: opts.concurrency ?? 64,
    // Auto-pipelining: commands of concurrent jobs issued in one tick leave in one socket write.
    redis: { enableAutoPipelining: true },
    failedMessage: 'webhook job failed',
    process: async ({ deliveryId }) => {
      let outcome = await processDelivery(deps, deliveryId);
      // A job may fire a little before the row's due time (timer granularity): wait it out.
      if (outcome.kind === 'not_due' && outcome.dueInMs < 2_000) {
        const waitMs = Math.max(outcome.dueInMs, 0) + 5;
        await new Promise((r) => setTimeout(r, waitMs));
        outcome = await processDelivery(deps, deliveryId);
      }
      opts.onOutcome?.(deliveryId, outcome);
      countWebhookAttempt(outcome.kind);
      if (outcome.kind === 'retry') {
        await enqueueDeliveries(ctx, [outcome.next]).catch((err) =>
          ctx.log.warn({ err: { message: (err as Error).message } }, 'webhook retry not queued; the sweeper will'),
        );
      }
    },
  });

  return async () => {
    await stopWorker();
    await sender.close();
    await sql.end({ timeout: 5 });
  };
}
