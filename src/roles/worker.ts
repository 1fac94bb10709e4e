import type { AppContext } from '../app-context.js';
import { startSessionSweepers } from '../sessions/sweepers.js';
import { startWebhookWorkers } from '../webhooks/index.js';

/** The worker role: BullMQ processors (webhook delivery) and sweepers (expired and orphaned sessions). */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const stops = [await startWebhookWorkers(ctx), startSessionSweepers(ctx)];
  ctx.log.info('worker role started');
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
