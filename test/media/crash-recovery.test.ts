import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { ManualClock } from '../../src/shared/clock.js';
import { sweepOnce } from '../../src/sessions/sweepers.js';
import { endSession } from '../../src/sessions/settlement.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until } from './client.js';

const clock = new ManualClock(Date.now());
const h = await startHarness({ clock });
t.teardown(h.close);
const tenant = await createTenant(h);
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 100n * MINUTE_NANO);

function startNode(): Promise<{ child: ChildProcess; port: number; lines: AsyncIterableIterator<string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./fixtures/media-node.ts', import.meta.url).pathname], {
    env: { ...process.env, DATABASE_URL: h.ctx.config.DATABASE_URL, REDIS_URL: h.ctx.config.REDIS_URL, TEST_REDIS_PREFIX: h.ctx.redisPrefix },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return lines.next().then((first) => ({ child, port: JSON.parse(first.value).port as number, lines }));
}

const row = async (id: string) => (await h.ctx.sql`select * from voice_sessions where id = ${id}`)[0];

t.test('a media node SIGKILLed mid-call: the sweeper settles its call exactly once', async (t) => {
  const node = await startNode();
  t.teardown(() => void node.child.kill('SIGKILL'));
  const s = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(s.ws_url, node.port));
  await c.opened;
  for (let i = 0; i < 10; i++) {
    c.ws.send(sine(16000, 20));
    await sleep(20);
  }
  await until(() => c.binary.length > 0);
  t.equal((await row(s.session.id)).status, 'active');

  node.child.kill('SIGKILL');
  const closed = await c.closed;
  t.equal(closed.code, 1006, 'the socket just dropped');
  t.equal((await row(s.session.id)).status, 'active', 'nobody settled it yet');

  // Before the node's lease runs out nothing happens; after it, one sweep settles.
  t.same(await sweepOnce(h.ctx), { expired: 0, orphaned: 0 });
  clock.set(Date.now() + 31_000);
  const sweeps = await Promise.all([sweepOnce(h.ctx), sweepOnce(h.ctx), sweepOnce(h.ctx)]);
  t.equal(sweeps.reduce((n, r) => n + r.orphaned, 0) >= 1, true);
  const r = await row(s.session.id);
  t.equal(r.status, 'failed');
  t.equal(r.end_reason, 'service_error');
  t.ok(r.settled_at);
  // A late end signal (say the node's own settlement retried) changes nothing.
  const late = await endSession(h.ctx, s.session.id, { outcome: 'completed', endReason: 'caller_hangup' });
  t.equal(late!.settledNow, false);
  const ledger = await h.ctx.sql`select kind, count(*)::int as n from wallet_ledger where session_id = ${s.session.id} group by kind order by kind`;
  t.same(ledger.map((e) => [e.kind, e.n]), [['charge', 1], ['hold', 1], ['release', 1]]);
  const [w] = await h.ctx.sql`select held_nano_usd from wallets where project_id = ${tenant.projectId}`;
  t.equal(w.held_nano_usd, 0n, 'hold released');
  t.equal(await h.ctx.redis.zscore(`${h.ctx.redisPrefix}{slots}:slots:${tenant.projectId}`, s.session.id), null, 'slot released');
  clock.set(Date.now());
});

t.test('SIGTERM drains a media node: session_ended + 1013, settled as service_restart', async (t) => {
  const node = await startNode();
  t.teardown(() => void node.child.kill('SIGKILL'));
  const s = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(s.ws_url, node.port));
  await c.opened;
  await until(async () => (await row(s.session.id)).status === 'active');
  node.child.kill('SIGTERM');
  const closed = await c.closed;
  t.equal(closed.code, 1013);
  t.same(c.text.at(-1), { type: 'session_ended', reason: 'service_restart' });
  const done = await node.lines.next();
  t.same(JSON.parse(done.value), { drained: true });
  const r = await row(s.session.id);
  t.equal(r.status, 'completed');
  t.equal(r.end_reason, 'service_restart');
  t.ok(r.settled_at);
});
