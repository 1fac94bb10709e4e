import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import { insertDeliveries, type DueDelivery } from './webhook-deliveries.js';

// The delivery log the console reads, and dead-letter replay (contract §11).

export interface DeliveryLogRow {
  id: string;
  webhook_id: string;
  kind: 'endpoint' | 'agent';
  endpoint_id: string | null;
  agent_id: string | null;
  event_type: string;
  url: string;
  status: string;
  attempts: number;
  max_attempts: number;
  last_status: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
  delivered_at: Date | null;
}

export interface DeliveryFilter {
  endpointId?: string | null;
  sessionId?: string | null;
  status?: string | null;
  limit: number;
  offset: number;
}

/** Deliveries of a project, newest first; `sessionId` keeps those of events about that session. */
export async function listDeliveries(ctx: AppContext, projectId: string, f: DeliveryFilter): Promise<DeliveryLogRow[]> {
  const sql = ctx.sql;
  return sql<DeliveryLogRow[]>`
    select d.id, coalesce(d.webhook_id, d.id) as webhook_id, d.kind, d.endpoint_id, d.agent_id, d.event_type, d.url,
           d.status, d.attempts, d.max_attempts, d.last_status, d.last_error, d.created_at, d.updated_at, d.delivered_at
    from webhook_deliveries d
    ${f.sessionId ? sql`join webhook_events e on e.id = d.event_id` : sql``}
    where d.project_id = ${projectId}
      ${f.endpointId ? sql`and d.endpoint_id = ${f.endpointId}` : sql``}
      ${f.status ? sql`and d.status = ${f.status}` : sql``}
      ${f.sessionId ? sql`and e.data->'session'->>'id' = ${f.sessionId}` : sql``}
    order by d.created_at desc, d.id desc
    limit ${f.limit} offset ${f.offset}`;
}

export interface Replayed {
  delivery_id: string;
  webhook_id: string;
  replay_of: string;
  endpoint_id: string;
  event_type: string;
  queued: true;
  due: DueDelivery[];
}

/**
 * Queues a dead letter of an endpoint again as a new delivery with the same webhook-id, to the
 * endpoint's current URL and revision. 404 for a delivery that is not a dead letter of this
 * endpoint; 409 when the endpoint is disabled or a replay of it is still on its way.
 */
export async function replayDeadLetter(ctx: AppContext, projectId: string, endpointId: string, deliveryId: string): Promise<Replayed> {
  return ctx.sql.begin(async (tx) => {
    // The endpoint row lock orders this against a concurrent disable and a concurrent replay.
    const [ep] = await tx<{ id: string; url: string; status: string; revision: number }[]>`
      select id, url, status, revision from webhook_endpoints
      where id = ${endpointId} and project_id = ${projectId} for update`;
    if (!ep) throw errors.notFound('webhook endpoint not found');
    const [dead] = await tx<{ id: string; webhook_id: string; event_id: string; event_type: string; data: unknown }[]>`
      select id, coalesce(webhook_id, id) as webhook_id, event_id, event_type, data from webhook_deliveries
      where id = ${deliveryId} and project_id = ${projectId} and endpoint_id = ${endpointId} and status = 'dead'`;
    if (!dead) throw errors.notFound('dead letter not found');
    if (ep.status !== 'active') throw errors.conflict('webhook endpoint is disabled');
    const [open] = await tx`
      select 1 from webhook_deliveries
      where coalesce(webhook_id, id) = ${dead.webhook_id} and status in ('pending', 'sending') limit 1`;
    if (open) throw errors.conflict('a replay of this delivery is already queued');
    const due = await insertDeliveries(tx, ctx, [
      {
        eventId: dead.event_id,
        projectId,
        eventType: dead.event_type,
        kind: 'endpoint',
        endpointId: ep.id,
        endpointRevision: ep.revision,
        agentId: null,
        url: ep.url,
        data: dead.data,
        webhookId: dead.webhook_id,
      },
    ]);
    return { delivery_id: due[0].id, webhook_id: dead.webhook_id, replay_of: dead.id, endpoint_id: ep.id, event_type: dead.event_type, queued: true, due };
  });
}
