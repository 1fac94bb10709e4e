import type { AppContext } from '../app-context.js';
import { startWebhookWorkers } from '../webhooks/index.js';

/** The worker role: BullMQ processors and sweepers. */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const stops = [await startWebhookWorkers(ctx)];
  ctx.log.info('worker role started');
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
