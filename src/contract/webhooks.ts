import { isIP } from 'node:net';
import { z } from 'zod';
import { EVENT_TYPES } from './events.js';
import { blockedReason, isLocalHostName } from '../shared/net/address-policy.js';
import { queryBool, queryInt, paging } from './validation.js';

/** Why `raw` cannot be a webhook URL, or null. Resolved addresses are checked again at delivery. */
export function webhookUrlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute URL';
  }
  const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) return allowPrivate ? 'must be an http(s) URL' : 'must be an https URL';
  if (url.username || url.password) return 'must not contain credentials';
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    const reason = blockedReason(host);
    return reason ? `must be a public address (${host} is ${reason})` : null;
  }
  return isLocalHostName(host) ? 'must be a public host name' : null;
}

export const WebhookEndpointPath = z.object({ endpoint_id: z.uuid() });

const endpointName = z.string().trim().min(1).max(120);
const endpointEventTypes = z.array(z.enum(EVENT_TYPES)).max(50);

/** A webhook URL that passes webhookUrlProblem (the same rules on create and update). */
function endpointUrl(allowPrivate: boolean) {
  return z
    .string()
    .min(8)
    .max(2048)
    .superRefine((value, ctx) => {
      const problem = webhookUrlProblem(value, allowPrivate);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });
}

export function createEndpointBody(allowPrivate: boolean) {
  return z.strictObject({
    name: endpointName,
    url: endpointUrl(allowPrivate),
    event_types: endpointEventTypes.default([]),
  });
}

/**
 * PATCH body: only the fields sent change, with the create rules; `status` disables or enables
 * again. An empty body changes nothing and answers the endpoint as it is.
 */
export function updateEndpointBody(allowPrivate: boolean) {
  return z.strictObject({
    name: endpointName.optional(),
    url: endpointUrl(allowPrivate).optional(),
    event_types: endpointEventTypes.optional(),
    status: z.enum(['active', 'disabled']).optional(),
  });
}
export type UpdateEndpointBody = z.output<ReturnType<typeof updateEndpointBody>>;

export const ListEndpointsQuery = z.strictObject({ include_disabled: queryBool.default(false), ...paging });
export const DeadLettersQuery = z.strictObject({ limit: queryInt(1, 200).default(50) });

export const WebhookEndpointInfo = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  status: z.enum(['active', 'disabled']),
  revision: z.number().int(),
  secret_hint: z.string(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export const CreatedWebhookEndpoint = WebhookEndpointInfo.extend({ signing_secret: z.string() });

export const WebhookTestResult = z.object({
  delivery_id: z.uuid(),
  endpoint_id: z.uuid(),
  event_type: z.string(),
  queued: z.boolean(),
});

export const DeadLetterInfo = z.object({
  id: z.uuid(),
  kind: z.enum(['endpoint', 'agent']),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  endpoint_id: z.uuid().nullable().optional(),
  event_type: z.string().nullable().optional(),
  last_error: z.string().nullable().optional(),
});
