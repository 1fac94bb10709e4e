import { randomBytes } from 'node:crypto';
import t from 'tap';
import { freePort } from '../helpers/own-redis.js';
import { startReceiver } from '../fakes/receiver.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { listMediaNodes } from '../../src/sessions/media-nodes.js';
import { NODE_TTL_MS } from '../../src/shared/media-node-layout.js';
import { connect, sine, type MediaClient } from '../media/client.js';
import { createEndpoint, ping, waitForStatus } from '../webhooks/support.js';
import { fundedAgent, killRole, ledgerKinds, sessionRow, sleep, startFaultHarness, startRole, until, type RoleProcess } from './support.js';

// Issue 21 deliverable 4: the service as separate OS processes on one Postgres and one Redis —
// two api processes, two media processes (registered), one worker. Limits hold across the api
// processes, calls spread over the media processes, a media process killed with -9 has its calls
// ended and settled exactly once while new calls go elsewhere, a SIGTERMed one drains while new
// calls go elsewhere, and a worker killed with -9 mid-delivery loses no webhook.

const keyringSpec = `t1:${randomBytes(32).toString('base64')}`;
const { h, roles } = await startFaultHarness(null, { env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200,200' } });
h.ctx.keyring = Keyring.parse(keyringSpec); // every process opens what another sealed
const env = { KEYRING: keyringSpec, WEBHOOK_RETRY_SCHEDULE_MS: '0,200,200,200', LOG_LEVEL: 'info' };

const apiPorts = [await freePort(), await freePort()];
for (const port of apiPorts) roles.push(await startRole(h, 'api', { ...env, PORT: String(port) }));
const media = async (extra: Record<string, string> = {}) => {
  const m = await startRole(h, 'media', { ...env, TEST_REGISTER: '1', MEDIA_CAPACITY: '20', ...extra });
  roles.push(m);
  return m;
};
const mediaA = await media();
const mediaB = await media({ DRAIN_GRACE_MS: '3000' });
let worker = await startRole(h, 'worker', env);
roles.push(worker);
await until(async () => (await listMediaNodes(h.ctx)).length === 2, 10_000);

const api = (i: number, path: string, headers: Record<string, string>, body?: unknown) =>
  fetch(`http://127.0.0.1:${apiPorts[i % 2]}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
const portOf = (wsUrl: string) => Number(new URL(wsUrl).port);
type Admitted = { session: { id: string }; ws_url: string };

t.test('the rate limit holds across the api processes', async (t) => {
  const { tenant } = await fundedAgent(h, { minutes: 1 });
  await h.ctx.sql`update projects set api_rpm = 6 where id = ${tenant.projectId}`;
  const codes: number[] = [];
  for (let i = 0; i < 10; i++) codes.push((await api(i, '/v2/voice/sessions', tenant.machine)).status);
  t.equal(codes.filter((c) => c === 200).length, 6, `6 of 10 answered across both processes (${codes.join(',')})`);
  t.equal(codes.filter((c) => c === 429).length, 4);
});

const calls: { id: string; client: MediaClient; port: number }[] = [];
let stopAudio = () => {};
t.teardown(() => stopAudio());

t.test('the concurrency limit holds across api processes; calls spread over both media processes', async (t) => {
  const { tenant, agent } = await fundedAgent(h, { minutes: 100, maxConcurrentSessions: 4 });
  const answers = await Promise.all(Array.from({ length: 7 }, (_, i) => api(i, '/v2/voice/sessions', tenant.machine, { agent_id: agent.agentId })));
  const admitted = answers.filter((r) => r.status === 201);
  t.equal(admitted.length, 4, 'exactly the limit admitted');
  t.ok(answers.filter((r) => r.status !== 201).every((r) => r.status === 429), 'the rest 429');
  const sessions = (await Promise.all(admitted.map((r) => r.json()))) as Admitted[];
  const ports = sessions.map((s) => portOf(s.ws_url));
  t.equal(ports.filter((p) => p === mediaA.port).length, 2, 'two on media A');
  t.equal(ports.filter((p) => p === mediaB.port).length, 2, 'two on media B');
  for (const s of sessions) {
    const client = connect(s.ws_url);
    await client.opened;
    calls.push({ id: s.session.id, client, port: portOf(s.ws_url) });
  }
  const frame = sine(16000, 20);
  const timer = setInterval(() => {
    for (const c of calls) if (c.client.ws.readyState === c.client.ws.OPEN) c.client.ws.send(frame);
  }, 20);
  stopAudio = () => clearInterval(timer);
  await until(async () => (await Promise.all(calls.map((c) => sessionRow(h, c.id)))).every((r) => r.status === 'active'), 15_000).catch(async (err: unknown) => {
    t.comment(JSON.stringify(await Promise.all(calls.map(async (c) => ({ status: (await sessionRow(h, c.id)).status, text: c.client.text, state: c.client.ws.readyState })))));
    throw err;
  });
});

t.test('kill -9 of a media process: its calls end, are settled exactly once, new calls go to the other', async (t) => {
  const onA = calls.filter((c) => c.port === mediaA.port);
  await killRole(mediaA, 'SIGKILL');
  const closes = await Promise.all(onA.map((c) => c.client.closed));
  t.ok(closes.every((c) => c.code !== 1000), `the calls' sockets dropped (${closes.map((c) => c.code).join(',')})`);

  // New calls (another project) go to B once A's entry is past its expiry (at most NODE_TTL_MS).
  await sleep(NODE_TTL_MS + 500);
  const { tenant, agent } = await fundedAgent(h, { minutes: 100 });
  for (let i = 0; i < 2; i++) {
    const r = await api(i, '/v2/voice/sessions', tenant.machine, { agent_id: agent.agentId });
    t.equal(r.status, 201);
    t.equal(portOf(((await r.json()) as Admitted).ws_url), mediaB.port, 'a new call goes to B');
  }

  // The worker's sweeper settles A's calls once their lease (30 s) ran out; exactly once.
  await until(async () => (await Promise.all(onA.map((c) => sessionRow(h, c.id)))).every((r) => r.settled_at !== null), 60_000);
  await sleep(6000); // another sweep finds nothing more to do
  for (const c of onA) {
    t.same(await ledgerKinds(h, c.id), { hold: 1, release: 1, charge: 1 }, 'settled exactly once');
    t.not((await sessionRow(h, c.id)).status, 'active');
  }
  t.ok(calls.filter((c) => c.port === mediaB.port).every((c) => c.client.ws.readyState === c.client.ws.OPEN), "B's calls go on");
});

t.test('SIGTERM of a media process: it drains while new calls go to the other', async (t) => {
  const mediaC = await media();
  await until(async () => (await listMediaNodes(h.ctx)).some((n) => n.url.endsWith(`:${mediaC.port}`) && !n.draining), 5000);
  const onB = calls.filter((c) => c.port === mediaB.port);
  mediaB.child.kill('SIGTERM');
  await until(async () => (await listMediaNodes(h.ctx)).some((n) => n.url.endsWith(`:${mediaB.port}`) && n.draining), 5000);
  const { tenant, agent } = await fundedAgent(h, { minutes: 100 });
  for (let i = 0; i < 2; i++) {
    const r = await api(i, '/v2/voice/sessions', tenant.machine, { agent_id: agent.agentId });
    t.equal(r.status, 201);
    t.equal(portOf(((await r.json()) as Admitted).ws_url), mediaC.port, 'a new call goes to C, not the draining B');
  }
  // The drain (DRAIN_GRACE_MS 3 s here) ends B's calls with 1013 and settles them itself.
  const closes = await Promise.all(onB.map((c) => c.client.closed));
  t.same(closes.map((c) => c.code), onB.map(() => 1013), 'closed with 1013 after the grace');
  t.same((await mediaB.exited).code, 0, 'B exits cleanly');
  for (const c of onB) {
    t.match(await sessionRow(h, c.id), { status: 'completed', end_reason: 'service_restart' });
    t.same(await ledgerKinds(h, c.id), { hold: 1, release: 1, charge: 1 });
  }
});

t.test('kill -9 of the worker mid-delivery: the webhook is not lost', async (t) => {
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  rx.respond((_r, n) => (n === 1 ? { hang: true } : { status: 204 }));
  const { tenant } = await fundedAgent(h, { minutes: 1 });
  const ep = await createEndpoint(h, tenant, rx.url);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const [first] = await rx.waitFor(1, 10_000);
  t.equal(first.id, delivery_id);
  await killRole(worker, 'SIGKILL');
  worker = await startRole(h, 'worker', env);
  roles.push(worker as RoleProcess);
  // The killed attempt's lease (timeout 15 s + 15 s) runs out; the new worker delivers it again.
  const got = await rx.waitFor(2, 60_000);
  t.equal(got[1].id, delivery_id, 'delivered again with the same webhook-id');
  t.equal((await waitForStatus(h, delivery_id, 'delivered', 10_000)).attempts, 2);
});
