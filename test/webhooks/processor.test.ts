import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { startReceiver, verifyDelivery, type Receiver } from '../fakes/receiver.js';
import { processDelivery, type ProcessorDeps } from '../../src/webhooks/processor.js';
import { createSender } from '../../src/webhooks/sender.js';
import { batchingStore } from '../../src/webhooks/store.js';
import { sweepOnce } from '../../src/webhooks/sweeper.js';
import { deliveryQueue } from '../../src/webhooks/queue.js';
import { claimDelivery } from '../../src/db/repos/webhook-deliveries.js';
import { nextDelayMs, scheduledDelayMs } from '../../src/webhooks/schedule.js';
import { parseRetryAfter } from '../../src/webhooks/sender.js';
import { deliveryHeaders, sign, signingKey } from '../../src/webhooks/signing.js';
import { createEndpoint, delivery, ping, sleep } from './support.js';

// The delivery processor without BullMQ: one call is one attempt against real Postgres and a
// real receiver; the outcome says what to queue next.

t.test('schedule: no jitter on the first attempt, ±10% after; Retry-After only when longer', async (t) => {
  const schedule = [0, 5000, 300000];
  t.equal(scheduledDelayMs(schedule, 0, () => 1), 0);
  t.equal(scheduledDelayMs([200, 5000], 0, () => 1), 200);
  t.equal(scheduledDelayMs(schedule, 1, () => 0), 4500);
  t.equal(scheduledDelayMs(schedule, 1, () => 1), 5500);
  t.equal(scheduledDelayMs(schedule, 2, () => 0.5), 300000);
  for (let i = 0; i < 200; i++) {
    const d = scheduledDelayMs(schedule, 1);
    t.ok(d >= 4500 && d <= 5500);
  }
  t.equal(nextDelayMs(schedule, 1, 60_000, () => 0.5), 60_000, 'longer Retry-After wins');
  t.equal(nextDelayMs(schedule, 1, 1_000, () => 0.5), 5000, 'shorter Retry-After is ignored');
  t.equal(nextDelayMs(schedule, 1, null, () => 0.5), 5000);
});

t.test('Retry-After parsing', async (t) => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  t.equal(parseRetryAfter('120', now), 120_000);
  t.equal(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now), 30_000);
  t.equal(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now), 0);
  t.equal(parseRetryAfter('soon', now), null);
  t.equal(parseRetryAfter(undefined, now), null);
  t.equal(parseRetryAfter('99999999', now), 24 * 3600 * 1000, 'capped at a day');
});

t.test('signatures match the standardwebhooks reference implementation', async (t) => {
  const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
  const ts = 1_700_000_000;
  const body = '{"type":"webhook.ping","timestamp":"2026-01-01T00:00:00.000Z","data":{}}';
  t.equal(sign(signingKey(secret), 'msg_1', ts, body), new Webhook(secret).sign('msg_1', new Date(ts * 1000), body));
  const headers = deliveryHeaders(signingKey(secret), 'msg_1', Math.floor(Date.now() / 1000), body);
  t.same(new Webhook(secret).verify(body, headers), JSON.parse(body));
});

const h = await startHarness({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,1000,2000' } });
const tenant = await createTenant(h);
const sender = createSender({ allowPrivate: true });
const rx: Receiver = await startReceiver();
t.teardown(async () => {
  await sender.close();
  await rx.close();
  await h.close();
});
const deps: ProcessorDeps = { ctx: h.ctx, sender, leaseMs: 5000, timeoutMs: 300, random: () => 0.5 };

t.test('a hanging receiver times out and the attempt is scheduled again', async (t) => {
  rx.respond(() => ({ hang: true }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const started = Date.now();
  const outcome = await processDelivery(deps, delivery_id);
  t.ok(Date.now() - started < 5000, 'the attempt gave up at its timeout');
  t.match(outcome, { kind: 'retry', attempt: 1, error: 'timeout after 300 ms' });
  const [row] = await h.ctx.sql`select status, next_attempt_at, updated_at from webhook_deliveries where id = ${delivery_id}`;
  t.equal(row.status, 'pending');
  // schedule[1] = 1000 ms with the jitter pinned to zero (random 0.5), counted from the failure.
  const wait = (row.next_attempt_at as Date).getTime() - (row.updated_at as Date).getTime();
  t.ok(wait > 900 && wait <= 1000, `next attempt ${wait} ms after the failure`);
  t.same((await processDelivery(deps, delivery_id)).kind, 'not_due');
  await h.ctx.sql`update webhook_endpoints set status = 'disabled' where id = ${ep.id}`;
});

t.test('a delivery under an old revision or to a disabled endpoint is never sent', async (t) => {
  rx.respond(() => ({ status: 204 }));
  const before = rx.received.length;
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  // The endpoint moved on without the delivery being cancelled (a race the claim must catch).
  await h.ctx.sql`update webhook_endpoints set revision = revision + 1 where id = ${ep.id}`;
  t.same(await processDelivery(deps, delivery_id), { kind: 'skipped', reason: 'cancelled' });
  t.equal((await delivery(h, delivery_id)).status, 'cancelled');

  const ep2 = await createEndpoint(h, tenant, rx.url);
  const p2 = await ping(h, tenant, ep2.id);
  await h.ctx.sql`update webhook_endpoints set status = 'disabled' where id = ${ep2.id}`;
  t.same(await processDelivery(deps, p2.delivery_id), { kind: 'skipped', reason: 'cancelled' });
  t.equal(rx.received.length, before);
});

t.test('two workers racing for one delivery send it once', async (t) => {
  rx.respond(() => ({ status: 200 }));
  const before = rx.received.length;
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const outcomes = await Promise.all([processDelivery(deps, delivery_id), processDelivery(deps, delivery_id), processDelivery(deps, delivery_id)]);
  t.same(outcomes.map((o) => o.kind).sort(), ['delivered', 'skipped', 'skipped']);
  t.equal(rx.received.length, before + 1);
  verifyDelivery(ep.signing_secret, rx.received.at(-1)!);
  t.same(await processDelivery(deps, delivery_id), { kind: 'skipped', reason: 'finished' });
});

t.test('the batching store claims and records many deliveries in one statement, each once', async (t) => {
  rx.respond(() => ({ status: 200 }));
  const before = rx.received.length;
  const eps = await Promise.all([1, 2, 3].map(() => createEndpoint(h, tenant, rx.url)));
  const ids = await Promise.all(eps.map(async (ep) => (await ping(h, tenant, ep.id)).delivery_id));
  const batched: ProcessorDeps = { ...deps, store: batchingStore(h.ctx, 5) };
  // Every id twice, as duplicate jobs would: each is still sent exactly once.
  const outcomes = await Promise.all([...ids, ...ids].map((id) => processDelivery(batched, id)));
  t.same(outcomes.map((o) => o.kind).sort(), ['delivered', 'delivered', 'delivered', 'skipped', 'skipped', 'skipped']);
  t.equal(rx.received.length, before + 3);
  for (const id of ids) t.equal((await delivery(h, id)).status, 'delivered');
});

t.test('a 503 with a short Retry-After follows the schedule; the last attempt dead-letters', async (t) => {
  rx.respond(() => ({ status: 503, headers: { 'retry-after': '0' } }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const first = await processDelivery(deps, delivery_id);
  t.match(first, { kind: 'retry', attempt: 1, error: 'HTTP 503' });
  // Skip the waiting: make it due now.
  for (const attempt of [2, 3]) {
    await h.ctx.sql`update webhook_deliveries set next_attempt_at = now() - interval '1 second' where id = ${delivery_id}`;
    const o = await processDelivery(deps, delivery_id);
    t.equal(o.kind, attempt === 3 ? 'dead' : 'retry');
  }
  const row = await delivery(h, delivery_id);
  t.same([row.status, row.attempts, row.max_attempts, row.last_error, row.last_status], ['dead', 3, 3, 'HTTP 503', 503]);
});

t.test('the sweeper returns expired leases to the schedule, dead-letters a lost last attempt, and re-queues overdue work', async (t) => {
  const ep = await createEndpoint(h, tenant, rx.url);
  const a = (await ping(h, tenant, ep.id)).delivery_id;
  const ep2 = await createEndpoint(h, tenant, rx.url);
  const b = (await ping(h, tenant, ep2.id)).delivery_id;
  const ep3 = await createEndpoint(h, tenant, rx.url);
  const c = (await ping(h, tenant, ep3.id)).delivery_id;
  await deliveryQueue(h.ctx).obliterate({ force: true });

  // a: claimed by a worker that then vanished; b: the same on its last attempt.
  t.ok(await claimDelivery(h.ctx, a, 1));
  await h.ctx.sql`update webhook_deliveries set attempts = max_attempts - 1 where id = ${b}`;
  t.ok(await claimDelivery(h.ctx, b, 1));
  // c: recorded long ago and never queued.
  await h.ctx.sql`update webhook_deliveries set next_attempt_at = now() - interval '1 minute' where id = ${c}`;
  await sleep(20);

  const queued = await sweepOnce(h.ctx, { overdueGraceMs: 5_000 });
  t.equal(queued, 2);
  const ra = await delivery(h, a);
  t.same([ra.status, ra.attempts, ra.last_error], ['pending', 1, 'delivery interrupted (worker lost)']);
  const rb = await delivery(h, b);
  t.same([rb.status, rb.attempts, rb.last_error], ['dead', 3, 'delivery interrupted (worker lost)']);
  const jobs = await deliveryQueue(h.ctx).getJobs(['waiting', 'delayed', 'prioritized']);
  t.same(jobs.map((j) => j.id).sort(), [`${a}-a1`, `${c}-a0`].sort());
  t.equal(await sweepOnce(h.ctx, { overdueGraceMs: 5_000 }), 1, 'c is still overdue; re-adding its job is a no-op');
  t.equal(await deliveryQueue(h.ctx).count(), 2);
  await deliveryQueue(h.ctx).obliterate({ force: true });
});
