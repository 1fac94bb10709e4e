import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { closeContext, createContext } from '../../src/context.js';
import type { MediaServerOptions } from '../../src/media/server.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode } from '../../src/roles/media.js';
import type { MediaServer } from '../../src/media/server.js';
import { listMediaNodes } from '../../src/sessions/media-nodes.js';
import { mediaNodesKey, NODE_TTL_MS } from '../../src/shared/media-node-layout.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { connect, sleep, until } from './client.js';

// Issue 21 deliverable 1, in one process: admission picks the least-loaded live media node with
// room that is not draining, the ws_url points at it, another node refuses the socket with 4409
// (leaving the token usable), and no node with room is a 503 with a detail.

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 10_000n * MINUTE_NANO);

const post = () => h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId } });
const admitted = async () => {
  const res = await post();
  if (res.statusCode !== 201) throw new Error(`${res.statusCode} ${res.body}`);
  return res.json<{ session: { id: string }; ws_url: string }>();
};
const row = async (id: string) => (await h.ctx.sql`select * from voice_sessions where id = ${id}`)[0];
const nodeOf = (wsUrl: string, nodes: MediaServer[]) => nodes.find((n) => new URL(wsUrl).port === String(n.port));

t.test('with no node ever registered, admission keeps PUBLIC_MEDIA_URL and records no node', async (t) => {
  await startNode(); // not registered (tests, benches)
  t.equal(await h.ctx.redis.exists(mediaNodesKey(h.ctx)), 0);
  const s = await admitted();
  t.ok(s.ws_url.startsWith(`${h.ctx.config.PUBLIC_MEDIA_URL}/v2/voice/sessions/`), s.ws_url);
  t.equal((await row(s.session.id)).media_node_id, null);
});

const register = (capacity: number) => ({ publicUrl: (port: number) => `ws://127.0.0.1:${port}`, capacity });

// Each node on its own context, as in its own process: a drain marks only its own context draining.
async function startNode(opts: Partial<MediaServerOptions> = {}): Promise<MediaServer> {
  const ctx = await createContext(h.ctx.config, { log: h.ctx.log, keyring: h.ctx.keyring, redisPrefix: h.ctx.redisPrefix, clock: h.ctx.clock });
  const node = await startMediaNode(ctx, { port: 0, host: '127.0.0.1', ...opts });
  t.teardown(async () => {
    await node.drain(0);
    await closeContext(ctx);
  });
  return node;
}

t.test('registered nodes', async (t) => {
  const a = await startNode({ register: register(3) });
  const b = await startNode({ register: register(3) });
  await until(async () => (await listMediaNodes(h.ctx)).length === 2);

  t.test('sessions spread over the nodes; the ws_url and the row name the picked node', async (t) => {
    const picked: MediaServer[] = [];
    const sessions = [];
    for (let i = 0; i < 4; i++) {
      const s = await admitted();
      const node = nodeOf(s.ws_url, [a, b]);
      t.ok(node, `ws_url ${s.ws_url} points at a registered node`);
      t.equal((await row(s.session.id)).media_node_id, node!.nodeId, 'the session records the node');
      picked.push(node!);
      sessions.push(s);
    }
    t.equal(picked.filter((n) => n === a).length, 2, 'two on each node (pending calls count as load)');

    // The wrong node refuses with 4409 and leaves the token unused; the right node takes it.
    const s = sessions[0];
    const right = nodeOf(s.ws_url, [a, b])!;
    const wrong = right === a ? b : a;
    const refused = connect(s.ws_url.replace(`:${right.port}/`, `:${wrong.port}/`));
    t.equal((await refused.closed).code, 4409);
    t.equal((await row(s.session.id)).token_used_at, null, 'token not consumed by the refusal');
    const ok = connect(s.ws_url);
    await ok.opened;
    await until(async () => (await row(s.session.id)).status === 'active');
    t.equal(right.sessions.size, 1);
    // The heartbeat moves the call from pending to active without counting it twice.
    await until(async () => (await listMediaNodes(h.ctx)).find((n) => n.id === right.nodeId)?.active === 1);
    const view = (await listMediaNodes(h.ctx)).find((n) => n.id === right.nodeId)!;
    t.equal(view.active + view.pending, 2, 'one active and one pending on that node');
    ok.ws.send(JSON.stringify({ type: 'stop' }));
    await ok.closed;
  });

  t.test('full nodes: 503 with a detail; a draining node is not picked', async (t) => {
    // Capacity 3 each; 4 pending/active already (one ended, its heartbeat brings active back to 0).
    await until(async () => (await listMediaNodes(h.ctx)).every((n) => n.active === 0));
    const more = [];
    for (let i = 0; i < 3; i++) more.push(await admitted());
    const full = await post();
    t.equal(full.statusCode, 503);
    t.same(full.json(), { detail: 'no media node has room for another call, retry later' });
    t.ok(full.headers['retry-after']);

    // Node b drains: even with room freed on it, admission sends nothing there.
    const c = await startNode({ register: register(10) });
    const drained = c.drain(500);
    await sleep(50);
    t.equal((await post()).statusCode, 503, 'the draining node is not picked');
    await drained;
    t.ok((await listMediaNodes(h.ctx)).some((n) => n.id === c.nodeId && n.draining), 'its entry stays, marked draining and expired');
    t.ok(more.length === 3);
  });

  t.test('a stopped node is not picked; every live node full is a 503', async (t) => {
    const d = await startNode({ register: register(10) });
    await until(async () => (await listMediaNodes(h.ctx)).some((n) => n.id === d.nodeId));
    const s = await admitted();
    t.equal(nodeOf(s.ws_url, [d])?.nodeId, d.nodeId, 'the empty node takes the call');
    // Simulate kill -9: the entry is left as it is and never refreshed.
    const before = (await listMediaNodes(h.ctx)).find((n) => n.id === d.nodeId)!;
    await d.drain(0); // marks it expired at once: the same effect as NODE_TTL_MS without a beat
    t.ok(before.expires_ms > 0);
    t.equal((await post()).statusCode, 503, 'every live node is full');
    t.comment(`a dead node's entry expires ${NODE_TTL_MS} ms after its last beat`);
  });
});
