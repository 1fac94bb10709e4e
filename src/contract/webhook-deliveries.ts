import { z } from 'zod';
import { paging } from './validation.js';

/** An optional query filter; empty means no filter. */
const nullable = <T extends z.ZodType>(s: T) => z.union([z.literal('').transform(() => null), s]).optional();

// The delivery log and dead-letter replay (contract §11): what the console shows of deliveries.

export const DELIVERY_STATUSES = ['pending', 'sending', 'delivered', 'dead', 'cancelled'] as const;

export const ListDeliveriesQuery = z.strictObject({
  ...paging,
  endpoint_id: nullable(z.uuid()),
  session_id: nullable(z.uuid()),
  status: nullable(z.enum(DELIVERY_STATUSES)),
});

export const DeadLetterPath = z.object({ endpoint_id: z.uuid(), delivery_id: z.uuid() });

export const WebhookDeliveryInfo = z.object({
  id: z.uuid(),
  webhook_id: z.uuid(),
  kind: z.enum(['endpoint', 'agent']),
  endpoint_id: z.uuid().nullable(),
  agent_id: z.uuid().nullable(),
  event_type: z.string(),
  url: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  max_attempts: z.number().int(),
  last_status: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  delivered_at: z.iso.datetime().nullable(),
});

export const ReplayResult = z.object({
  delivery_id: z.uuid(),
  webhook_id: z.uuid(),
  replay_of: z.uuid(),
  endpoint_id: z.uuid(),
  event_type: z.string(),
  queued: z.boolean(),
});
