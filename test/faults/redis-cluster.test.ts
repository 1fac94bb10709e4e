import t from 'tap';
import { Cluster } from 'ioredis';
import { startOwnRedisCluster } from '../helpers/own-redis-cluster.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { startTelephonyWorkers } from '../../src/telephony/dial-worker.js';
import { startMediaNode } from '../../src/roles/media.js';
import { listMediaNodes } from '../../src/sessions/media-nodes.js';
import { slotKey } from '../../src/sessions/slot-layout.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { createEndpoint, ping, receiverPool, waitForStatus } from '../webhooks/support.js';
import { phoneTenant, placeOutbound, startBed } from '../telephony/helpers.js';
import { connect, until } from '../media/client.js';

// Issue 21 deliverable 3: with REDIS_CLUSTER_NODES the service runs on a Redis Cluster (three
// masters this test starts itself): concurrency slots (the take script: ready marker, project
// set, publishable key set in one slot), rate limits, webhook deliveries and dial jobs (BullMQ
// under the `{voice}` tag) and the media node registry (`{media}`) all work on it.

const cluster = await startOwnRedisCluster(3);
const bed = await startBed({ env: { REDIS_URL: `redis://127.0.0.1:${cluster.ports[0]}`, REDIS_CLUSTER_NODES: cluster.nodes } });
const { h } = bed;
const stops: (() => Promise<void>)[] = [];
const { receiver, closeAll } = receiverPool();
t.teardown(async () => {
  for (const stop of stops.reverse()) await stop();
  await closeAll();
  await cluster.flush(); // the harness cleanup asks one node for its keys: nothing is left anywhere
  await bed.close();
  await cluster.close();
});

t.test('the service talks to the cluster', async (t) => {
  t.ok(h.ctx.redis instanceof Cluster, 'ctx.redis is an ioredis Cluster');
  t.ok(h.ctx.boundedRedis instanceof Cluster, 'ctx.boundedRedis is an ioredis Cluster');
  const slots = (await h.ctx.redis.cluster('SLOTS')) as unknown[];
  t.equal(slots.length, 3, 'three masters share the slots');
});

t.test('concurrency slots and the media node registry', async (t) => {
  const tenant = await createTenant(h);
  await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 2 });
  const agent = await createAgent(h, tenant.projectId);
  await fund(h, tenant.projectId, 100n * MINUTE_NANO);
  const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', register: { publicUrl: (port) => `ws://127.0.0.1:${port}`, capacity: 10 } });
  stops.push(() => media.drain(0));
  await until(async () => (await listMediaNodes(h.ctx)).length === 1);

  const post = () => h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId } });
  const first = await post();
  const second = await post();
  t.equal(first.statusCode, 201);
  t.equal(second.statusCode, 201);
  t.ok((first.json() as { ws_url: string }).ws_url.startsWith(`ws://127.0.0.1:${media.port}/`), 'ws_url of the registered node');
  const third = await post();
  t.equal(third.statusCode, 429);
  t.same(third.json(), { detail: 'concurrency limit reached' });
  t.equal(await h.ctx.redis.zcard(slotKey(h.ctx, tenant.projectId)), 2, 'two slots in the project set');
  t.equal((await listMediaNodes(h.ctx))[0].pending, 2, 'two sessions pending on the node');

  // A call connects through the registry's node and the slot scripts; its end frees the slot.
  const c = connect((first.json() as { ws_url: string }).ws_url);
  await c.opened;
  await until(async () => (await listMediaNodes(h.ctx))[0].active === 1);
  c.ws.send(JSON.stringify({ type: 'stop' }));
  await c.closed;
  await media.idle();
  await until(async () => (await h.ctx.redis.zcard(slotKey(h.ctx, tenant.projectId))) === 1);
  t.equal((await post()).statusCode, 201, 'the freed slot admits another session');
});

t.test('rate limits', async (t) => {
  const tenant = await createTenant(h);
  await setProjectLimits(h.ctx, tenant.projectId, { api_rpm: 3 });
  const codes = [];
  for (let i = 0; i < 4; i++) codes.push((await h.app.inject({ method: 'GET', url: '/v2/voice/sessions', headers: tenant.machine })).statusCode);
  t.same(codes, [200, 200, 200, 429]);
});

t.test('webhook deliveries', async (t) => {
  stops.push(await startWebhookWorkers(h.ctx, { concurrency: 2, sweepIntervalMs: 200, overdueGraceMs: 1000 }));
  const tenant = await createTenant(h);
  const rx = await receiver();
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const [got] = await rx.waitFor(1);
  t.equal(got.id, delivery_id);
  t.equal((await waitForStatus(h, delivery_id, 'delivered')).attempts, 1);
});

t.test('dial jobs', async (t) => {
  const placed: string[] = [];
  stops.push(await startTelephonyWorkers(h.ctx, { concurrency: 2, sweeper: false, onOutcome: (_id, o) => placed.push(o.kind) }));
  const p = await phoneTenant(bed);
  const res = await placeOutbound(bed, p);
  t.equal(res.statusCode, 202);
  // The carrier hears the call before the worker has read its answer and reported the outcome.
  await until(() => bed.fake.calls.length === 1 && placed.length === 1, 10_000);
  t.same(placed, ['dialed']);
  const form = bed.fake.calls[0].form;
  t.same(form.To, ['+14155559999']);
  const [node] = await listMediaNodes(h.ctx);
  t.match(form.Twiml[0], `url="${node.url}/v2/carriers/twilio/stream"`, "the stream URL is the registered node's");
});
