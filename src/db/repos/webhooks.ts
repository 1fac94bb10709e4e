import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';
import { KeyringError } from '../../shared/crypto/keyring.js';
import { newWebhookSecret } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';
import type { Tx } from '../../shared/sql.js';
import { endpointDelivery, insertDeliveries } from './webhook-deliveries.js';
import type { DueDelivery } from './webhook-deliveries.js';
import { insertWebhookEvent } from './webhook-events.js';

// Webhook endpoints: create (secret shown once), list, update, disable, test ping, dead letters.

export interface WebhookEndpointInfo {
  id: string;
  project_id: string;
  name: string;
  url: string;
  event_types: string[];
  status: 'active' | 'disabled';
  revision: number;
  secret_hint: string;
  created_at: Date;
  updated_at: Date;
}

export interface DeadLetterInfo {
  id: string;
  kind: 'endpoint' | 'agent';
  attempts: number;
  max_attempts: number;
  created_at: Date;
  updated_at: Date;
  endpoint_id: string | null;
  event_type: string | null;
  last_error: string | null;
}

export interface PingResult {
  delivery_id: string;
  endpoint_id: string;
  event_type: 'webhook.ping';
  queued: boolean;
  /** For `kickDeliveries` when queued. */
  due: DueDelivery[];
}

const COLUMNS = ['id', 'project_id', 'name', 'url', 'event_types', 'status', 'revision', 'secret_hint', 'created_at', 'updated_at'];

export async function createEndpoint(
  ctx: AppContext,
  projectId: string,
  input: { name: string; url: string; event_types: string[] },
): Promise<WebhookEndpointInfo & { signing_secret: string }> {
  const id = randomUUID();
  const secret = newWebhookSecret();
  let sealed: string;
  try {
    sealed = ctx.keyring.encrypt(secret, id);
  } catch (err) {
    if (err instanceof KeyringError) throw errors.unavailable('webhook secret storage unavailable');
    throw err;
  }
  const now = ctx.clock.now();
  const [row] = await ctx.sql<WebhookEndpointInfo[]>`
    insert into webhook_endpoints (id, project_id, name, url, event_types, secret_sealed, secret_hint, created_at, updated_at)
    values (${id}, ${projectId}, ${input.name}, ${input.url}, ${[...new Set(input.event_types)]},
            ${sealed}, ${secret.slice(-4)}, ${now}, ${now})
    returning ${ctx.sql(COLUMNS)}`;
  return { ...row, signing_secret: secret };
}

export async function listEndpoints(
  ctx: AppContext,
  projectId: string,
  opts: { includeDisabled: boolean; limit: number; offset: number },
): Promise<WebhookEndpointInfo[]> {
  return ctx.sql<WebhookEndpointInfo[]>`
    select ${ctx.sql(COLUMNS)} from webhook_endpoints
    where project_id = ${projectId} ${opts.includeDisabled ? ctx.sql`` : ctx.sql`and status = 'active'`}
    order by created_at desc, id desc limit ${opts.limit} offset ${opts.offset}`;
}

/**
 * Disables an endpoint: the revision goes up and every open delivery is cancelled in the same
 * transaction, so no worker can claim one afterwards. Disabling a disabled endpoint is allowed
 * (the spec's transition is from "any" state) and bumps the revision again.
 */
export async function disableEndpoint(ctx: AppContext, projectId: string, endpointId: string): Promise<WebhookEndpointInfo> {
  const now = ctx.clock.now();
  return ctx.sql.begin<WebhookEndpointInfo>(async (tx) => {
    const [row] = await tx<WebhookEndpointInfo[]>`
      update webhook_endpoints set status = 'disabled', revision = revision + 1, updated_at = ${now}
      where id = ${endpointId} and project_id = ${projectId}
      returning ${tx(COLUMNS)}`;
    if (!row) throw errors.notFound('webhook endpoint not found');
    await cancelOpenDeliveries(tx, endpointId, now);
    return row;
  });
}

async function cancelOpenDeliveries(tx: Tx, endpointId: string, now: Date): Promise<void> {
  await tx`
    update webhook_deliveries set status = 'cancelled', last_error = 'endpoint disabled', lease_until = null, updated_at = ${now}
    where endpoint_id = ${endpointId} and status in ('pending', 'sending')`;
}

export interface EndpointChanges {
  name?: string;
  url?: string;
  event_types?: string[];
  status?: 'active' | 'disabled';
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * Changes the fields given, in one transaction with the endpoint row locked. A change bumps the
 * revision (so a new ping is not deduplicated against the old URL). Disabling cancels the open
 * deliveries, as DELETE does; on an endpoint that stays active they move to the new revision and
 * URL, so retries go where the endpoint now points. Enabling again revives nothing cancelled.
 * Sending what is already there changes nothing, revision included.
 */
export async function updateEndpoint(ctx: AppContext, projectId: string, endpointId: string, changes: EndpointChanges): Promise<WebhookEndpointInfo> {
  const now = ctx.clock.now();
  return ctx.sql.begin<WebhookEndpointInfo>(async (tx) => {
    const [cur] = await tx<WebhookEndpointInfo[]>`
      select ${tx(COLUMNS)} from webhook_endpoints
      where id = ${endpointId} and project_id = ${projectId} for update`;
    if (!cur) throw errors.notFound('webhook endpoint not found');
    const next = {
      name: changes.name ?? cur.name,
      url: changes.url ?? cur.url,
      event_types: changes.event_types ? [...new Set(changes.event_types)] : cur.event_types,
      status: changes.status ?? cur.status,
    };
    const changed = next.name !== cur.name || next.url !== cur.url || next.status !== cur.status || !sameSet(next.event_types, cur.event_types);
    if (!changed) return cur;
    const [row] = await tx<WebhookEndpointInfo[]>`
      update webhook_endpoints
      set name = ${next.name}, url = ${next.url}, event_types = ${next.event_types}, status = ${next.status},
          revision = revision + 1, updated_at = ${now}
      where id = ${endpointId}
      returning ${tx(COLUMNS)}`;
    if (row.status === 'disabled') await cancelOpenDeliveries(tx, endpointId, now);
    else if (cur.status === 'active') {
      await tx`
        update webhook_deliveries set endpoint_revision = ${row.revision}, url = ${row.url}, updated_at = ${now}
        where endpoint_id = ${endpointId} and endpoint_revision = ${cur.revision} and status in ('pending', 'sending')`;
    }
    return row;
  });
}

/** Records a `webhook.ping`, at most one per endpoint, revision and minute. */
export async function pingEndpoint(ctx: AppContext, projectId: string, endpointId: string): Promise<PingResult> {
  const now = ctx.clock.now();
  return ctx.sql.begin(async (tx) => {
    // The row lock orders pings against each other and against a concurrent disable.
    const [ep] = await tx<{ id: string; url: string; status: string; revision: number }[]>`
      select id, url, status, revision from webhook_endpoints
      where id = ${endpointId} and project_id = ${projectId} for update`;
    if (!ep) throw errors.notFound('webhook endpoint not found');
    if (ep.status !== 'active') throw errors.conflict('webhook endpoint is disabled');
    const dedupeKey = `ping:${ep.id}:${ep.revision}:${Math.floor(now.getTime() / 60_000)}`;
    const [existing] = await tx`select id from webhook_deliveries where dedupe_key = ${dedupeKey}`;
    const base = { endpoint_id: ep.id, event_type: 'webhook.ping' as const };
    if (existing) return { ...base, delivery_id: existing.id as string, queued: false, due: [] };
    const eventId = await insertWebhookEvent(tx, { projectId, type: 'webhook.ping', data: { endpoint_id: ep.id }, createdAt: now });
    const delivery = endpointDelivery({ eventId, projectId, eventType: 'webhook.ping' }, ep, dedupeKey);
    const [due] = await insertDeliveries(tx, ctx, [delivery]);
    return { ...base, delivery_id: due.id, queued: true, due: [due] };
  });
}

export interface SubscribedEndpoint {
  id: string;
  url: string;
  revision: number;
}

/**
 * The project's active endpoints subscribed to `type`, oldest first, FOR SHARE: a concurrent
 * disable waits for the caller's transaction and then cancels the deliveries it wrote too.
 */
export async function listSubscribedEndpoints(tx: Tx, projectId: string, type: string): Promise<SubscribedEndpoint[]> {
  return tx<SubscribedEndpoint[]>`
    select id, url, revision from webhook_endpoints
    where project_id = ${projectId} and status = 'active'
      and (cardinality(event_types) = 0 or ${type} = any(event_types))
    order by created_at
    for share`;
}

export async function listDeadLetters(ctx: AppContext, projectId: string, limit: number): Promise<DeadLetterInfo[]> {
  return ctx.sql<DeadLetterInfo[]>`
    select id, kind, attempts, max_attempts, created_at, updated_at, endpoint_id, event_type, last_error
    from webhook_deliveries
    where project_id = ${projectId} and status = 'dead'
    order by updated_at desc, id desc limit ${limit}`;
}
