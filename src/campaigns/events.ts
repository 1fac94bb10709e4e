import type { CampaignInfo } from '../contract/campaigns.js';
import { endpointDelivery, insertDeliveries } from '../db/repos/webhook-deliveries.js';
import { insertWebhookEvent } from '../db/repos/webhook-events.js';
import { listSubscribedEndpoints } from '../db/repos/webhooks.js';
import type { AppContext } from '../shared/app-context.js';
import type { Tx } from '../shared/sql.js';
import type { DueDelivery } from '../webhooks/index.js';

// campaign.completed (contract §11): written to the outbox in the transaction that marks the
// campaign finished, once per campaign, to every active project endpoint subscribed to it. Sent
// when the last row is settled: `campaign.status` says `completed` or `canceled`.

export const CAMPAIGN_COMPLETED = 'campaign.completed';

/** Records the event and its deliveries; hand the result to `kickDeliveries` after commit. */
export async function emitCampaignCompleted(tx: Tx, ctx: AppContext, campaign: CampaignInfo): Promise<DueDelivery[]> {
  const eventId = await insertWebhookEvent(tx, { projectId: campaign.project_id, type: CAMPAIGN_COMPLETED, data: { campaign }, createdAt: ctx.clock.now() });
  const endpoints = await listSubscribedEndpoints(tx, campaign.project_id, CAMPAIGN_COMPLETED);
  const event = { eventId, projectId: campaign.project_id, eventType: CAMPAIGN_COMPLETED };
  return insertDeliveries(tx, ctx, endpoints.map((ep) => endpointDelivery(event, ep)));
}
