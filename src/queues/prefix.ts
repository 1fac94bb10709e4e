import type { AppContext } from '../shared/app-context.js';

/**
 * BullMQ's key prefix, under the context's Redis prefix so tests and tenants of one Redis stay
 * apart. The `{voice}` hash tag puts every queue key in one Redis Cluster slot, as BullMQ's
 * scripts require (REDIS_CLUSTER_NODES); on a single Redis it is just part of the name.
 */
export function bullPrefix(ctx: AppContext): string {
  return `${ctx.redisPrefix}{voice}:bull`;
}
