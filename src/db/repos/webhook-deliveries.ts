import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';
import type { Tx } from '../../shared/sql.js';

/** A delivery that is waiting for an attempt, as producers hand it to `kickDeliveries`. */
export interface DueDelivery {
  id: string;
  /** Attempts already made; part of the job id so each attempt has its own job. */
  attempts: number;
  nextAttemptAt: Date;
}

// Delivery rows: the state machine pending → sending → delivered | dead | cancelled. Every
// transition out of `sending` names the attempt it closes, so a worker whose lease expired
// (and whose delivery was taken over) can never overwrite a newer attempt's outcome.

export interface DeliveryInsert {
  eventId: string;
  projectId: string;
  eventType: string;
  kind: 'endpoint' | 'agent';
  endpointId: string | null;
  endpointRevision: number | null;
  agentId: string | null;
  url: string;
  /** Per-target `data`; null delivers the event's own data. */
  data: unknown;
  dedupeKey?: string | null;
  /** A replay sends the original's webhook-id; absent for a first delivery. */
  webhookId?: string | null;
}

/** A delivery of an event to a project endpoint, at the endpoint's current revision, with the event's own data. */
export function endpointDelivery(
  event: { eventId: string; projectId: string; eventType: string },
  endpoint: { id: string; url: string; revision: number },
  dedupeKey: string | null = null,
): DeliveryInsert {
  return {
    ...event,
    kind: 'endpoint',
    endpointId: endpoint.id,
    endpointRevision: endpoint.revision,
    agentId: null,
    url: endpoint.url,
    data: null,
    dedupeKey,
  };
}

/** Inserts deliveries (inside the caller's transaction) due after the schedule's first delay. */
export async function insertDeliveries(tx: Tx, ctx: AppContext, rows: DeliveryInsert[]): Promise<DueDelivery[]> {
  if (rows.length === 0) return [];
  const schedule = ctx.config.WEBHOOK_RETRY_SCHEDULE_MS;
  const now = ctx.clock.now();
  const nextAttemptAt = new Date(now.getTime() + (schedule[0] ?? 0));
  const values = rows.map((r) => ({
    id: randomUUID(),
    event_id: r.eventId,
    project_id: r.projectId,
    event_type: r.eventType,
    kind: r.kind,
    endpoint_id: r.endpointId,
    endpoint_revision: r.endpointRevision,
    agent_id: r.agentId,
    url: r.url,
    data: r.data === null || r.data === undefined ? null : tx.json(r.data as never),
    max_attempts: schedule.length,
    next_attempt_at: nextAttemptAt,
    dedupe_key: r.dedupeKey ?? null,
    webhook_id: r.webhookId ?? null,
    created_at: now,
    updated_at: now,
  }));
  await tx`insert into webhook_deliveries ${tx(values)}`;
  return values.map((v) => ({ id: v.id, attempts: 0, nextAttemptAt }));
}

export interface ClaimedDelivery {
  id: string;
  /** The webhook-id header: the original delivery's id for a replay, else `id`. */
  webhook_id: string;
  kind: 'endpoint' | 'agent';
  url: string;
  attempts: number;
  max_attempts: number;
  event_type: string;
  endpoint_id: string | null;
  agent_id: string | null;
  data: unknown;
  event_data: unknown;
  occurred_at: Date;
  secret_sealed: string | null;
}

/**
 * Takes deliveries for one attempt each when they are pending, due and (for an endpoint) the
 * endpoint is still active at the revision the delivery was made under. Ids not returned were
 * not claimable (see `explainMiss`).
 */
export async function claimDeliveries(ctx: AppContext, ids: string[], leaseMs: number): Promise<ClaimedDelivery[]> {
  const now = ctx.clock.now();
  const leaseUntil = new Date(now.getTime() + leaseMs);
  return ctx.sql<ClaimedDelivery[]>`
    with claimed as (
      update webhook_deliveries d
      set status = 'sending', attempts = d.attempts + 1, lease_until = ${leaseUntil}, updated_at = ${now}
      where d.id = any(${ids}::uuid[]) and d.status = 'pending' and d.next_attempt_at <= ${now}
        and (d.kind = 'agent' or exists (
          select 1 from webhook_endpoints ep
          where ep.id = d.endpoint_id and ep.status = 'active' and ep.revision = d.endpoint_revision))
      returning d.id, coalesce(d.webhook_id, d.id) as webhook_id, d.kind, d.url, d.attempts, d.max_attempts, d.event_type, d.endpoint_id, d.agent_id, d.data, d.event_id
    )
    select c.id, c.webhook_id, c.kind, c.url, c.attempts, c.max_attempts, c.event_type, c.endpoint_id, c.agent_id, c.data,
           e.data as event_data, e.created_at as occurred_at,
           coalesce(ep.secret_sealed, a.webhook_secret_sealed) as secret_sealed
    from claimed c
    join webhook_events e on e.id = c.event_id
    left join webhook_endpoints ep on c.kind = 'endpoint' and ep.id = c.endpoint_id
    left join agents a on c.kind = 'agent' and a.id = c.agent_id`;
}

export async function claimDelivery(ctx: AppContext, id: string, leaseMs: number): Promise<ClaimedDelivery | null> {
  const [row] = await claimDeliveries(ctx, [id], leaseMs);
  return row ?? null;
}

export type ClaimMiss = { reason: 'gone' | 'finished' | 'cancelled' } | { reason: 'not_due'; dueInMs: number };

/** Why a claim found nothing; a pending delivery under a stale endpoint revision is cancelled here. */
export async function explainMiss(ctx: AppContext, id: string): Promise<ClaimMiss> {
  const now = ctx.clock.now();
  const [cancelled] = await ctx.sql`
    update webhook_deliveries d set status = 'cancelled', last_error = 'endpoint disabled', updated_at = ${now}
    where d.id = ${id} and d.status = 'pending' and d.kind = 'endpoint' and not exists (
      select 1 from webhook_endpoints ep
      where ep.id = d.endpoint_id and ep.status = 'active' and ep.revision = d.endpoint_revision)
    returning d.id`;
  if (cancelled) return { reason: 'cancelled' };
  const [row] = await ctx.sql`select status, next_attempt_at from webhook_deliveries where id = ${id}`;
  if (!row) return { reason: 'gone' };
  if (row.status === 'pending') return { reason: 'not_due', dueInMs: (row.next_attempt_at as Date).getTime() - now.getTime() };
  return { reason: 'finished' };
}

/** Records successful attempts; returns the ids whose attempt was still theirs to close. */
export async function markDeliveredMany(
  ctx: AppContext,
  items: { id: string; attempt: number; httpStatus: number }[],
): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const now = ctx.clock.now();
  const rows = await ctx.sql`
    update webhook_deliveries d
    set status = 'delivered', delivered_at = ${now}, updated_at = ${now}, last_status = v.http_status, lease_until = null, last_error = null
    from (select unnest(${items.map((i) => i.id)}::uuid[]) as id, unnest(${items.map((i) => i.attempt)}::int[]) as attempt,
                 unnest(${items.map((i) => i.httpStatus)}::int[]) as http_status) v
    where d.id = v.id and d.status = 'sending' and d.attempts = v.attempt
    returning d.id`;
  return new Set(rows.map((r) => r.id as string));
}

export async function markDelivered(ctx: AppContext, id: string, attempt: number, httpStatus: number): Promise<boolean> {
  return (await markDeliveredMany(ctx, [{ id, attempt, httpStatus }])).has(id);
}

export async function markRetry(
  ctx: AppContext,
  id: string,
  attempt: number,
  nextAttemptAt: Date,
  error: string,
  httpStatus: number | null,
): Promise<boolean> {
  const now = ctx.clock.now();
  const rows = await ctx.sql`
    update webhook_deliveries
    set status = 'pending', next_attempt_at = ${nextAttemptAt}, last_error = ${error}, last_status = ${httpStatus},
        lease_until = null, updated_at = ${now}
    where id = ${id} and status = 'sending' and attempts = ${attempt} returning id`;
  return rows.length === 1;
}

/** The delivery becomes a dead letter. */
export async function markDead(ctx: AppContext, id: string, attempt: number, error: string, httpStatus: number | null): Promise<boolean> {
  const now = ctx.clock.now();
  const rows = await ctx.sql`
    update webhook_deliveries
    set status = 'dead', last_error = ${error}, last_status = ${httpStatus}, lease_until = null, next_attempt_at = null, updated_at = ${now}
    where id = ${id} and status = 'sending' and attempts = ${attempt} returning id`;
  return rows.length === 1;
}

/**
 * Attempts whose worker died (lease expired): the attempt counts; the delivery is retried on
 * the schedule or, when that was its last attempt, becomes a dead letter.
 */
export async function expireLeases(ctx: AppContext, limit = 500): Promise<DueDelivery[]> {
  const now = ctx.clock.now();
  const schedule = ctx.config.WEBHOOK_RETRY_SCHEDULE_MS;
  const lost = 'delivery interrupted (worker lost)';
  await ctx.sql`
    update webhook_deliveries
    set status = 'dead', last_error = ${lost}, lease_until = null, next_attempt_at = null, updated_at = ${now}
    where id in (select id from webhook_deliveries where status = 'sending' and lease_until < ${now}
                 and attempts >= max_attempts limit ${limit})`;
  const rows = await ctx.sql`
    update webhook_deliveries
    set status = 'pending', last_error = ${lost}, lease_until = null, updated_at = ${now},
        next_attempt_at = ${now}::timestamptz
          + (${schedule}::int[])[least(attempts + 1, ${schedule.length})] * interval '1 millisecond'
    where id in (select id from webhook_deliveries where status = 'sending' and lease_until < ${now} limit ${limit})
    returning id, attempts, next_attempt_at`;
  return rows.map((r) => ({ id: r.id as string, attempts: r.attempts as number, nextAttemptAt: r.next_attempt_at as Date }));
}

/** Pending deliveries that have been due for at least `graceMs` without a worker taking them. */
export async function overdueDeliveries(ctx: AppContext, graceMs: number, limit = 1000): Promise<DueDelivery[]> {
  const cutoff = new Date(ctx.clock.now().getTime() - graceMs);
  const rows = await ctx.sql`
    select id, attempts, next_attempt_at from webhook_deliveries
    where status = 'pending' and next_attempt_at <= ${cutoff}
    order by next_attempt_at limit ${limit}`;
  return rows.map((r) => ({ id: r.id as string, attempts: r.attempts as number, nextAttemptAt: r.next_attempt_at as Date }));
}
