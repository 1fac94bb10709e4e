import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { verifyDelivery } from '../fakes/receiver.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { createEndpoint, delivery, ping, receiverPool, sleep, waitForStatus } from './support.js';

// BullMQ workers against real Redis and real local receivers: signing, retries with one id,
// Retry-After, redirects, dead letters, cancellation on disable.

const h = await startHarness({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100' } });
const tenant = await createTenant(h);
const stop = await startWebhookWorkers(h.ctx, { concurrency: 4, sweepIntervalMs: 100, overdueGraceMs: 1000 });
const { receiver, closeAll } = receiverPool();
t.teardown(async () => {
  await stop();
  await closeAll();
  await h.close();
});

t.test('a test ping arrives signed per Standard Webhooks', async (t) => {
  const rx = await receiver();
  const ep = await createEndpoint(h, tenant, rx.url, ['call.completed']);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const [got] = await rx.waitFor(1);
  t.equal(got.id, delivery_id);
  t.equal(got.headers['content-type'], 'application/json');
  t.equal(got.headers['user-agent'], 'voice-agent-webhooks/1');
  t.match(got.signature, /^v1,[A-Za-z0-9+/]{43}=$/);
  t.ok(Math.abs(Number(got.timestamp) - Date.now() / 1000) < 5);
  const body = verifyDelivery(ep.signing_secret, got);
  t.same(Object.keys(JSON.parse(got.body)), ['type', 'timestamp', 'data']);
  t.equal(body.type, 'webhook.ping');
  t.same(body.data, { endpoint_id: ep.id });
  t.ok(!Number.isNaN(Date.parse(body.timestamp)));
  t.throws(() => verifyDelivery(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got), 'another secret does not verify');
  t.throws(() => verifyDelivery(ep.signing_secret, { ...got, body: got.body.replace('ping', 'pong') }), 'tampered body does not verify');
  const row = await waitForStatus(h, delivery_id, 'delivered');
  t.equal(row.attempts, 1);
});

t.test('failures are retried with the same delivery id until a 2xx', async (t) => {
  const rx = await receiver();
  rx.respond((_r, n) => ({ status: n === 1 ? 500 : n === 2 ? 503 : 200 }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const got = await rx.waitFor(3);
  t.same(got.map((r) => r.id), [delivery_id, delivery_id, delivery_id]);
  for (const r of got) t.equal(verifyDelivery(ep.signing_secret, r).type, 'webhook.ping');
  t.equal(new Set(got.map((r) => r.body)).size, 1, 'every retry carries the same body');
  const row = await waitForStatus(h, delivery_id, 'delivered');
  t.equal(row.attempts, 3);
  t.equal(row.last_error, null);
  await sleep(300);
  t.equal(rx.received.length, 3, 'nothing after the success');
});

t.test('Retry-After on a 429 is honoured when longer than the schedule', async (t) => {
  const rx = await receiver();
  rx.respond((_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }));
  const ep = await createEndpoint(h, tenant, rx.url);
  await ping(h, tenant, ep.id);
  const [first, second] = await rx.waitFor(2, 5000);
  t.ok(second.atMs - first.atMs >= 950, `waited ${second.atMs - first.atMs} ms`);
  t.equal(first.id, second.id);
});

t.test('a redirect is a failure and is never followed; the last failure is a dead letter', async (t) => {
  const rx = await receiver();
  rx.respond(() => ({ status: 307, headers: { location: `http://127.0.0.1:${rx.port}/elsewhere` } }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const row = await waitForStatus(h, delivery_id, 'dead');
  t.equal(rx.received.length, 4);
  t.ok(rx.received.every((r) => r.path === '/hook' && r.id === delivery_id));
  t.same({ attempts: row.attempts, max_attempts: row.max_attempts }, { attempts: 4, max_attempts: 4 });
  t.equal(row.last_error, 'HTTP 307 (redirects are not followed)');

  for (const base of [`/v2/projects/${tenant.projectId}`, `/console/v2/projects/${tenant.projectId}`]) {
    const res = await h.app.inject({
      method: 'GET',
      url: `${base}/webhooks/dead-letters?limit=10`,
      headers: base.startsWith('/v2') ? tenant.machine : tenant.bearer,
    });
    t.equal(res.statusCode, 200);
    const dead = res.json().find((d: { id: string }) => d.id === delivery_id);
    t.same(
      { ...dead, created_at: typeof dead.created_at, updated_at: typeof dead.updated_at },
      {
        id: delivery_id,
        kind: 'endpoint',
        attempts: 4,
        max_attempts: 4,
        created_at: 'string',
        updated_at: 'string',
        endpoint_id: ep.id,
        event_type: 'webhook.ping',
        last_error: 'HTTP 307 (redirects are not followed)',
      },
    );
  }
});

t.test('dead letters honour limit, newest first', async (t) => {
  const rx = await receiver();
  rx.respond(() => ({ status: 500 }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const row = await waitForStatus(h, delivery_id, 'dead');
  t.equal(row.last_error, 'HTTP 500');
  const res = await h.app.inject({ method: 'GET', url: `/v2/projects/${tenant.projectId}/webhooks/dead-letters?limit=1`, headers: tenant.machine });
  t.same(res.json().map((d: { id: string }) => d.id), [delivery_id]);
});

t.test('disabling an endpoint cancels its queued deliveries', async (t) => {
  const rx = await receiver();
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  rx.respond((_r, n) => (n === 1 ? { status: 500, hold: held } : { status: 204 }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  await rx.waitFor(1);
  const del = await h.app.inject({ method: 'DELETE', url: `/v2/projects/${tenant.projectId}/webhooks/${ep.id}`, headers: tenant.machine });
  t.equal(del.statusCode, 200);
  t.equal((await delivery(h, delivery_id)).status, 'cancelled');
  release();
  await sleep(600);
  t.equal(rx.received.length, 1, 'no retry after the disable');
  const row = await delivery(h, delivery_id);
  t.equal(row.status, 'cancelled');
  t.equal(row.attempts, 1);
});

t.test('a connection failure is retried, then dead-lettered with the error', async (t) => {
  const rx = await receiver();
  const url = rx.url;
  await rx.close(); // nothing listens on this port any more
  const ep = await createEndpoint(h, tenant, url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const row = await waitForStatus(h, delivery_id, 'dead');
  t.equal(row.attempts, 4);
  t.match(row.last_error, /connection failed \(ECONNREFUSED\)/);
});
