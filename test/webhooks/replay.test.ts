import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { verifyDelivery } from '../fakes/receiver.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { createEndpoint, ping, receiverPool, waitForStatus } from './support.js';

// Dead-letter replay (contract §11) on both doors, with real workers, Redis and a local receiver:
// a new delivery row, the same webhook-id header, signed again; and the delivery log that shows it.

const h = await startHarness({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,50' } });
const tenant = await createTenant(h);
const other = await createTenant(h);
const stop = await startWebhookWorkers(h.ctx, { concurrency: 2, sweepIntervalMs: 100, overdueGraceMs: 1000 });
const { receiver, closeAll } = receiverPool();
t.teardown(async () => {
  await stop();
  await closeAll();
  await h.close();
});

const doors = [
  { name: 'machine door', base: (p: string) => `/v2/projects/${p}/webhooks`, auth: (x: typeof tenant) => x.machine },
  { name: 'console door', base: (p: string) => `/console/v2/projects/${p}/webhooks`, auth: (x: typeof tenant) => x.bearer },
];

/** An endpoint whose receiver fails every request until told otherwise, and one dead ping. */
async function deadLetter() {
  const rx = await receiver();
  let failing = true;
  rx.respond(() => ({ status: failing ? 500 : 204 }));
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  await waitForStatus(h, delivery_id, 'dead');
  return { rx, ep, deadId: delivery_id, heal: () => (failing = false) };
}

for (const d of doors) {
  t.test(`${d.name}: replay queues a new delivery with the same webhook-id`, async (t) => {
    const { rx, ep, deadId, heal } = await deadLetter();
    t.equal(rx.received.length, 2, 'two attempts before the dead letter');
    heal();
    const res = await h.app.inject({ method: 'POST', url: `${d.base(tenant.projectId)}/${ep.id}/dead-letters/${deadId}/replay`, headers: d.auth(tenant) });
    t.equal(res.statusCode, 202, res.body);
    const body = res.json();
    t.not(body.delivery_id, deadId, 'a new delivery');
    t.equal(body.webhook_id, deadId);
    t.equal(body.replay_of, deadId);
    t.equal(body.endpoint_id, ep.id);
    t.equal(body.event_type, 'webhook.ping');
    const [, , third] = await rx.waitFor(3);
    t.equal(third.id, deadId, 'the replay carries the original webhook-id');
    t.equal(verifyDelivery(ep.signing_secret, third).type, 'webhook.ping');
    t.same(JSON.parse(third.body).data, JSON.parse(rx.received[0].body).data, 'the same data');
    await waitForStatus(h, body.delivery_id, 'delivered');
    t.equal((await waitForStatus(h, deadId, 'dead')).status, 'dead', 'the dead letter itself stays dead');

    const log = await h.app.inject({ method: 'GET', url: `${d.base(tenant.projectId)}/deliveries?endpoint_id=${ep.id}`, headers: d.auth(tenant) });
    t.equal(log.statusCode, 200, log.body);
    const rows = log.json() as { id: string; webhook_id: string; status: string; attempts: number }[];
    t.same(rows.map((r) => [r.id, r.webhook_id, r.status, r.attempts]), [
      [body.delivery_id, deadId, 'delivered', 1],
      [deadId, deadId, 'dead', 2],
    ], 'newest first, both with the same webhook-id');
    const deadOnly = await h.app.inject({ method: 'GET', url: `${d.base(tenant.projectId)}/deliveries?status=dead&endpoint_id=${ep.id}`, headers: d.auth(tenant) });
    t.same(deadOnly.json().map((r: { id: string }) => r.id), [deadId]);
  });
}

t.test('replay refuses what is not a dead letter of that endpoint, a disabled endpoint and a second queued replay', async (t) => {
  const { ep, deadId } = await deadLetter();
  const url = (epId: string, id: string) => `/v2/projects/${tenant.projectId}/webhooks/${epId}/dead-letters/${id}/replay`;
  const post = (u: string, headers = tenant.machine) => h.app.inject({ method: 'POST', url: u, headers });

  const rx = await receiver();
  const live = await createEndpoint(h, tenant, rx.url);
  const { delivery_id: delivered } = await ping(h, tenant, live.id);
  await waitForStatus(h, delivered, 'delivered');
  t.equal((await post(url(live.id, delivered))).statusCode, 404, 'a delivered delivery is no dead letter');
  t.equal((await post(url(live.id, deadId))).statusCode, 404, 'a dead letter of another endpoint');
  t.equal((await post(url(ep.id, '00000000-0000-4000-8000-000000000000'))).statusCode, 404);
  const bad = await post(url(ep.id, 'not-a-uuid'));
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['path', 'delivery_id']);
  const foreign = await h.app.inject({ method: 'POST', url: `/v2/projects/${other.projectId}/webhooks/${ep.id}/dead-letters/${deadId}/replay`, headers: other.machine });
  t.equal(foreign.statusCode, 404, "another project's dead letter is not found");
  const readOnly = await createTenant(h, ['webhook:read']);
  t.equal((await post(`/v2/projects/${readOnly.projectId}/webhooks/${ep.id}/dead-letters/${deadId}/replay`, readOnly.machine)).statusCode, 403, 'webhook:write is needed');

  // A replay held back (pending an hour from now): a second replay while it waits is a 409.
  const first = await post(url(ep.id, deadId));
  t.equal(first.statusCode, 202);
  await h.ctx.sql`update webhook_deliveries set status = 'pending', next_attempt_at = now() + interval '1 hour' where id = ${first.json().delivery_id}`;
  const second = await post(url(ep.id, deadId));
  t.equal(second.statusCode, 409);
  t.match(second.json().detail, /already queued/);

  await h.app.inject({ method: 'DELETE', url: `/v2/projects/${tenant.projectId}/webhooks/${ep.id}`, headers: tenant.machine });
  const disabled = await post(url(ep.id, deadId));
  t.equal(disabled.statusCode, 409);
  t.equal(disabled.json().detail, 'webhook endpoint is disabled');
});

t.test('the delivery log filters by session and is in the OpenAPI document', async (t) => {
  const res = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${tenant.projectId}/webhooks/deliveries?session_id=00000000-0000-4000-8000-000000000000`, headers: tenant.bearer });
  t.equal(res.statusCode, 200);
  t.same(res.json(), []);
  const bad = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${tenant.projectId}/webhooks/deliveries?status=lost`, headers: tenant.bearer });
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['query', 'status']);
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  t.ok(doc.paths['/v2/projects/{project_id}/webhooks/{endpoint_id}/dead-letters/{delivery_id}/replay'].post);
  t.ok(doc.paths['/console/v2/projects/{project_id}/webhooks/{endpoint_id}/dead-letters/{delivery_id}/replay'].post);
});
