import { z } from 'zod';
import { createEndpoint, disableEndpoint, listDeadLetters, listEndpoints, pingEndpoint, updateEndpoint } from '../../../db/repos/webhooks.js';
import { kickDeliveries } from '../../../webhooks/queue.js';
import { defineProjectRoute, type Router } from '../../route.js';
import { named } from '../../../contract/api-schemas.js';
import {
  CreatedWebhookEndpoint,
  createEndpointBody,
  DeadLetterInfo,
  DeadLettersQuery,
  ListEndpointsQuery,
  updateEndpointBody,
  WebhookEndpointInfo,
  WebhookEndpointPath,
  WebhookTestResult,
} from '../../../contract/webhooks.js';

/** Spec 4.5–4.6: the same operations on `/v2/projects/:project_id/webhooks` and the console door (PATCH edits in place). */
export function webhookRoutes(router: Router): void {
  const { ctx } = router;
  const common = { tag: 'webhooks', machineProjectInPath: true } as const;

  defineProjectRoute(router, { ...common, method: 'GET', path: '/webhooks', operationId: 'listWebhookEndpoints', summary: 'List webhook endpoints', scope: 'webhook:read', query: ListEndpointsQuery, status: 200, response: z.array(WebhookEndpointInfo) }, async ({ project, query }) =>
    listEndpoints(ctx, project.projectId, { includeDisabled: query.include_disabled, limit: query.limit, offset: query.offset }));

  defineProjectRoute(router, { ...common, method: 'POST', path: '/webhooks', operationId: 'createWebhookEndpoint', summary: 'Create a webhook endpoint (signing secret shown once)', errors: [409], idempotent: true, scope: 'webhook:write', body: named(createEndpointBody(ctx.config.ALLOW_PRIVATE_URLS), 'CreateWebhookEndpointRequest'), status: 201, response: CreatedWebhookEndpoint }, async ({ project, body }) =>
    createEndpoint(ctx, project.projectId, body));

  defineProjectRoute(router, { ...common, method: 'GET', path: '/webhooks/dead-letters', operationId: 'listWebhookDeadLetters', summary: 'Deliveries that exhausted their retries', scope: 'webhook:read', query: DeadLettersQuery, status: 200, response: z.array(DeadLetterInfo) }, async ({ project, query }) =>
    listDeadLetters(ctx, project.projectId, query.limit));

  defineProjectRoute(router, { ...common, method: 'PATCH', path: '/webhooks/:endpoint_id', operationId: 'updateWebhookEndpoint', summary: 'Change a webhook endpoint in place (only sent fields change; status disables or enables again)', scope: 'webhook:write', params: WebhookEndpointPath, body: named(updateEndpointBody(ctx.config.ALLOW_PRIVATE_URLS), 'UpdateWebhookEndpointRequest'), status: 200, response: WebhookEndpointInfo }, async ({ project, params, body }) =>
    updateEndpoint(ctx, project.projectId, params.endpoint_id, body));

  defineProjectRoute(router, { ...common, method: 'DELETE', path: '/webhooks/:endpoint_id', operationId: 'disableWebhookEndpoint', summary: 'Disable a webhook endpoint (cancels its queued deliveries)', errors: [409], scope: 'webhook:write', params: WebhookEndpointPath, status: 200, response: WebhookEndpointInfo }, async ({ project, params }) =>
    disableEndpoint(ctx, project.projectId, params.endpoint_id));

  defineProjectRoute(router, { ...common, method: 'POST', path: '/webhooks/:endpoint_id/test', operationId: 'testWebhookEndpoint', summary: 'Queue a signed webhook.ping', errors: [409], scope: 'webhook:write', params: WebhookEndpointPath, status: 202, response: WebhookTestResult }, async ({ project, params }) => {
    const { due, ...result } = await pingEndpoint(ctx, project.projectId, params.endpoint_id);
    // Not awaited: the 202 means "recorded"; the sweeper queues it if this kick is lost.
    void kickDeliveries(ctx, due);
    return result;
  });
}
