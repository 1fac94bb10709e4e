import type { AppContext } from '../app-context.js';

/** The worker role: BullMQ processors and sweepers. */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  ctx.log.info('worker role: no workers yet');
  return async () => {};
}
