import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { ManualClock } from '../../src/shared/clock.js';
import { activateSession, CloseCode, renewNodeLease } from '../../src/sessions/lifecycle.js';
import { endSession } from '../../src/sessions/settlement.js';
import { sweepOnce } from '../../src/sessions/sweepers.js';
import { countSlots } from '../../src/sessions/slots.js';
import { createAgent, fund, MINUTE_NANO } from './fixtures.js';

const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
const h = await startHarness({ clock });
t.teardown(h.close);
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 50 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1000n * MINUTE_NANO);

async function admit(body: Record<string, unknown> = {}) {
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId, ...body } });
  if (res.statusCode !== 201) throw new Error(`admission failed: ${res.body}`);
  const json = res.json();
  return { id: json.session.id as string, token: new URL(json.ws_url).searchParams.get('token')! };
}

const wallet = async () => {
  const [w] = await h.ctx.sql`select balance_nano_usd, held_nano_usd from wallets where project_id = ${tenant.projectId}`;
  return { balance: w.balance_nano_usd as bigint, held: w.held_nano_usd as bigint };
};

t.test('settlement at 0, 59, 60, 61 and 120 connected seconds', async (t) => {
  const cases: [number, bigint][] = [[0, 0n], [59, 1n], [60, 1n], [61, 2n], [120, 2n]];
  for (const [seconds, minutes] of cases) {
    const before = await wallet();
    const s = await admit();
    const act = await activateSession(h.ctx, s.id, s.token, 'node-a');
    t.ok(act.ok, 'activated');
    clock.advance(seconds * 1000);
    const end = await endSession(h.ctx, s.id, { outcome: 'completed', endReason: 'caller_hangup' });
    t.equal(end!.settledNow, true);
    const info = end!.session;
    t.equal(info.status, 'completed');
    t.equal(info.connected_seconds, seconds, `${seconds}s connected`);
    t.equal(info.cost_nano_usd, (minutes * MINUTE_NANO).toString(), `${seconds}s costs ${minutes} min`);
    t.equal(info.end_reason, 'caller_hangup');
    t.ok(info.started_at && info.media_connected_at && info.media_disconnected_at && info.ended_at);
    const after = await wallet();
    t.equal(after.balance, before.balance - minutes * MINUTE_NANO);
    t.equal(after.held, before.held);
  }
});

t.test('sub-second calls round up to one second', async (t) => {
  const s = await admit();
  await activateSession(h.ctx, s.id, s.token, 'node-a');
  clock.advance(1);
  const end = await endSession(h.ctx, s.id, { outcome: 'completed', endReason: 'caller_hangup' });
  t.equal(end!.session.connected_seconds, 1);
  t.equal(end!.session.cost_nano_usd, '5000000');
});

t.test('duplicate end signals settle exactly once', async (t) => {
  const s = await admit();
  await activateSession(h.ctx, s.id, s.token, 'node-a');
  clock.advance(90_000);
  const before = await wallet();
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) => endSession(h.ctx, s.id, { outcome: i % 2 ? 'failed' : 'completed', endReason: i % 2 ? 'service_error' : 'caller_hangup' })),
  );
  t.equal(results.filter((r) => r!.settledNow).length, 1);
  const costs = new Set(results.map((r) => r!.session.cost_nano_usd));
  t.same([...costs], ['10000000']);
  const after = await wallet();
  t.equal(after.balance, before.balance - 2n * MINUTE_NANO);
  const rows = await h.ctx.sql`select kind, amount_nano_usd from wallet_ledger where session_id = ${s.id} order by kind`;
  t.same(rows.map((r) => [r.kind, String(r.amount_nano_usd)]), [['charge', '10000000'], ['hold', '50000000'], ['release', '50000000']]);
  t.equal(await countSlots(h.ctx, tenant.projectId) >= 0, true);
  const slot = await h.ctx.redis.zscore(`${h.ctx.redisPrefix}{slots}:slots:${tenant.projectId}`, s.id);
  t.equal(slot, null, 'slot released');
  const events = await h.ctx.sql`select type from webhook_events where data->'session'->>'id' = ${s.id}`;
  t.same(events.map((e) => e.type), ['call.completed'], 'one call event, written with the settlement');
});

t.test('connected time is capped at max_duration_seconds', async (t) => {
  const s = await admit({ max_duration_seconds: 60 });
  await activateSession(h.ctx, s.id, s.token, 'node-a');
  clock.advance(62_000);
  const end = await endSession(h.ctx, s.id, { outcome: 'completed', endReason: 'max_duration' });
  t.equal(end!.session.connected_seconds, 60);
  t.equal(end!.session.cost_nano_usd, '5000000');
});

t.test('an unused ws_url expires: the sweeper fails it and frees hold and slot', async (t) => {
  const before = await wallet();
  const s = await admit();
  t.equal((await wallet()).held, before.held + 10n * MINUTE_NANO);
  clock.advance(59_000);
  t.same(await sweepOnce(h.ctx), { expired: 0, orphaned: 0 });
  clock.advance(1_000);
  t.same(await sweepOnce(h.ctx), { expired: 1, orphaned: 0 });
  const [row] = await h.ctx.sql`select status, end_reason, cost_nano_usd, connected_seconds from voice_sessions where id = ${s.id}`;
  t.same({ ...row, cost_nano_usd: String(row.cost_nano_usd) }, { status: 'failed', end_reason: 'not_connected', cost_nano_usd: '0', connected_seconds: 0 });
  const after = await wallet();
  t.same(after, before);
  t.equal(await h.ctx.redis.zscore(`${h.ctx.redisPrefix}{slots}:slots:${tenant.projectId}`, s.id), null);
  const events = await h.ctx.sql`select type from webhook_events where data->'session'->>'id' = ${s.id}`;
  t.same(events.map((e) => e.type), ['call.failed']);
  // Its URL now answers 4408.
  const late = await activateSession(h.ctx, s.id, s.token, 'node-a');
  t.same(late, { ok: false, code: CloseCode.expired, reason: 'ws_url expired' });
});

t.test('a connect after expiry but before the sweeper is 4408 and settles the session', async (t) => {
  const s = await admit();
  clock.advance(61_000);
  const late = await activateSession(h.ctx, s.id, s.token, 'node-a');
  t.equal(!late.ok && late.code, CloseCode.expired);
  const [row] = await h.ctx.sql`select status, end_reason from voice_sessions where id = ${s.id}`;
  t.same({ ...row }, { status: 'failed', end_reason: 'not_connected' });
});

t.test('a node whose lease lapsed: the sweeper settles its calls as service_error up to the last heartbeat', async (t) => {
  const s = await admit();
  await activateSession(h.ctx, s.id, s.token, 'node-dead');
  clock.advance(20_000);
  await renewNodeLease(h.ctx, 'node-dead', [s.id]); // the node's last sign of life
  clock.advance(29_000);
  t.same(await sweepOnce(h.ctx), { expired: 0, orphaned: 0 }, 'lease still valid');
  clock.advance(2_000);
  t.same(await sweepOnce(h.ctx), { expired: 0, orphaned: 1 });
  t.same(await sweepOnce(h.ctx), { expired: 0, orphaned: 0 });
  const [row] = await h.ctx.sql`select status, end_reason, connected_seconds, cost_nano_usd from voice_sessions where id = ${s.id}`;
  t.equal(row.status, 'failed');
  t.equal(row.end_reason, 'service_error');
  t.equal(row.connected_seconds, 20);
  t.equal(row.cost_nano_usd, 5_000_000n);
});

t.test('the sweeper reads the lease again under the row lock: a node that renewed meanwhile keeps its call', async (t) => {
  const s = await admit();
  await activateSession(h.ctx, s.id, s.token, 'node-slow');
  clock.advance(31_000); // the lease (30 s) ran out: the sweeper will list the call
  let sweep: Promise<unknown> | null = null;
  await h.ctx.sql.begin(async (tx) => {
    // The node's renewal holds the row while the sweeper lists the call and waits for the lock.
    await tx`select id from voice_sessions where id = ${s.id} for update`;
    sweep = sweepOnce(h.ctx);
    await new Promise((r) => setTimeout(r, 300));
    await renewNodeLease({ ...h.ctx, sql: tx as unknown as typeof h.ctx.sql }, 'node-slow', [s.id]);
  });
  t.same(await sweep, { expired: 0, orphaned: 0 }, 'not settled');
  const [row] = await h.ctx.sql`select status, settled_at from voice_sessions where id = ${s.id}`;
  t.same({ ...row }, { status: 'active', settled_at: null });
  const late = await endSession(h.ctx, s.id, { outcome: 'failed', endReason: 'service_error', onlyIf: 'lease_lapsed' });
  t.equal(late!.settledNow, false, 'nor by a late orphan settlement');
  await endSession(h.ctx, s.id, { outcome: 'completed', endReason: 'caller_hangup' });
});
