import { z } from 'zod';
import { listDeliveries } from '../../../db/repos/webhook-delivery-log.js';
import { replay } from '../../../webhooks/replay.js';
import { defineProjectRoute, type Router } from '../../route.js';
import { DeadLetterPath, ListDeliveriesQuery, ReplayResult, WebhookDeliveryInfo } from '../../../contract/webhook-deliveries.js';

/** The delivery log and dead-letter replay, on both doors like the other webhook routes. */
export function webhookDeliveryRoutes(router: Router): void {
  const { ctx } = router;
  const common = { tag: 'webhooks', machineProjectInPath: true } as const;

  defineProjectRoute(router, { ...common, method: 'GET', path: '/webhooks/deliveries', operationId: 'listWebhookDeliveries', summary: 'Webhook deliveries with their attempts, newest first (filter by endpoint, session or status)', scope: 'webhook:read', query: ListDeliveriesQuery, status: 200, response: z.array(WebhookDeliveryInfo) }, async ({ project, query }) =>
    listDeliveries(ctx, project.projectId, { endpointId: query.endpoint_id, sessionId: query.session_id, status: query.status, limit: query.limit, offset: query.offset }));

  defineProjectRoute(router, { ...common, method: 'POST', path: '/webhooks/:endpoint_id/dead-letters/:delivery_id/replay', operationId: 'replayWebhookDeadLetter', summary: 'Queue a dead letter again: a new delivery with the same webhook-id', scope: 'webhook:write', params: DeadLetterPath, status: 202, response: ReplayResult }, async ({ project, params }) =>
    replay(ctx, project.projectId, params.endpoint_id.toLowerCase(), params.delivery_id.toLowerCase()));
}
