import type { AppContext } from '../shared/app-context.js';
import type { ClaimedDelivery } from '../db/repos/webhook-deliveries.js';
import type { DueDelivery } from './queue.js';
import { nextDelayMs } from './schedule.js';
import type { Sender } from './sender.js';
import { directStore, type DeliveryStore } from './store.js';
import { deliveryBody, deliveryHeaders, signingKey } from './signing.js';

// One attempt of one delivery, with no BullMQ in sight: claim the row, sign, send, record the
// outcome. The caller (the BullMQ worker, or a test) queues the retry this returns.

export const DELIVERY_TIMEOUT_MS = 15_000;

export interface ProcessorDeps {
  ctx: AppContext;
  sender: Sender;
  /** How long a claimed attempt may run before the sweeper presumes its worker dead. */
  leaseMs: number;
  timeoutMs?: number;
  random?: () => number;
  /** Decrypts a sealed secret; cached by the worker (a rotated secret is a new sealed value). */
  openSecret?: (sealed: string, aad: string) => string;
  /** Delivery state reads and writes (default: one statement per call on ctx.sql). */
  store?: DeliveryStore;
}

export type Outcome =
  | { kind: 'delivered'; attempt: number; status: number }
  | { kind: 'retry'; attempt: number; error: string; next: DueDelivery }
  | { kind: 'dead'; attempt: number; error: string }
  | { kind: 'skipped'; reason: 'gone' | 'finished' | 'cancelled' | 'lost' }
  | { kind: 'not_due'; dueInMs: number };

function keyFor(deps: ProcessorDeps, d: ClaimedDelivery): Buffer {
  if (!d.secret_sealed) throw new Error('signing secret missing');
  const aad = d.kind === 'endpoint' ? d.endpoint_id! : d.agent_id!;
  const open = deps.openSecret ?? ((sealed, a) => deps.ctx.keyring.decrypt(sealed, a));
  return signingKey(open(d.secret_sealed, aad));
}

export async function processDelivery(deps: ProcessorDeps, deliveryId: string): Promise<Outcome> {
  const { ctx } = deps;
  const store = deps.store ?? directStore(ctx);
  const claimed = await store.claim(deliveryId, deps.leaseMs);
  if (!claimed) {
    const miss = await store.explainMiss(deliveryId);
    return miss.reason === 'not_due' ? { kind: 'not_due', dueInMs: miss.dueInMs } : { kind: 'skipped', reason: miss.reason };
  }
  const attempt = claimed.attempts;
  const body = deliveryBody(claimed.event_type, claimed.occurred_at, claimed.data ?? claimed.event_data);

  let result;
  try {
    const key = keyFor(deps, claimed);
    const timestampSeconds = Math.floor(ctx.clock.now().getTime() / 1000);
    result = await deps.sender.send({
      url: claimed.url,
      headers: deliveryHeaders(key, claimed.webhook_id ?? claimed.id, timestampSeconds, body),
      body,
      timeoutMs: deps.timeoutMs ?? DELIVERY_TIMEOUT_MS,
    });
  } catch (err) {
    ctx.log.warn({ delivery_id: claimed.id, err: { message: (err as Error).message } }, 'webhook signing failed');
    result = { ok: false, status: null, retryAfterMs: null, error: 'signing secret unavailable', permanent: false };
  }

  if (result.ok) {
    const recorded = await store.delivered(claimed.id, attempt, result.status!);
    return recorded ? { kind: 'delivered', attempt, status: result.status! } : { kind: 'skipped', reason: 'lost' };
  }
  const error = result.error ?? 'delivery failed';
  if (result.permanent || attempt >= claimed.max_attempts) {
    const recorded = await store.dead(claimed.id, attempt, error, result.status);
    if (recorded) ctx.log.info({ delivery_id: claimed.id, attempts: attempt, error }, 'webhook delivery dead-lettered');
    return recorded ? { kind: 'dead', attempt, error } : { kind: 'skipped', reason: 'lost' };
  }
  const delayMs = nextDelayMs(ctx.config.WEBHOOK_RETRY_SCHEDULE_MS, attempt, result.retryAfterMs, deps.random);
  const nextAttemptAt = new Date(ctx.clock.now().getTime() + delayMs);
  const recorded = await store.retry(claimed.id, attempt, nextAttemptAt, error, result.status);
  if (!recorded) return { kind: 'skipped', reason: 'lost' };
  return { kind: 'retry', attempt, error, next: { id: claimed.id, attempts: attempt, nextAttemptAt } };
}
