import type { AppContext } from '../shared/app-context.js';
import { replayDeadLetter } from '../db/repos/webhook-delivery-log.js';
import { kickDeliveries } from './queue.js';

/** Replays a dead letter (contract §11): recorded in Postgres first, then queued. */
export async function replay(ctx: AppContext, projectId: string, endpointId: string, deliveryId: string) {
  const { due, ...result } = await replayDeadLetter(ctx, projectId, endpointId, deliveryId);
  // Not awaited: the 202 means "recorded"; the sweeper queues it if this kick is lost.
  void kickDeliveries(ctx, due);
  return result;
}
