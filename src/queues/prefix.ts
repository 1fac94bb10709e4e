import type { AppContext } from '../shared/app-context.js';

/** BullMQ's key prefix, under the context's Redis prefix so tests and tenants of one Redis stay apart. */
export function bullPrefix(ctx: AppContext): string {
  return `${ctx.redisPrefix}bull`;
}
