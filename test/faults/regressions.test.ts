import t from 'tap';
import { freePort, startOwnRedis } from '../helpers/own-redis.js';
import { createTenant } from '../helpers/fixtures.js';
import { activateSession } from '../../src/sessions/lifecycle.js';
import { endSession } from '../../src/sessions/settlement.js';
import { countSlots } from '../../src/sessions/slots.js';
import { sweepOnce } from '../../src/sessions/sweepers.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { startReceiver } from '../fakes/receiver.js';
import { createEndpoint, ping, waitForStatus } from '../webhooks/support.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { fundedAgent, killRole, sleep, startFaultHarness, startRole, until } from './support.js';
import { randomBytes } from 'node:crypto';

// What held when the faults were found, and must keep holding with slots taken before the
// wallet transaction: concurrent admissions never overdraw, duplicate end signals charge once,
// kill -9 of the API loses nothing, webhooks survive FLUSHALL and a Redis restart with nothing
// lost and stable ids. (kill -9 of the media node: test/media/crash-recovery.test.ts; of a
// webhook worker: test/webhooks/kill.test.ts.)

const redis = await startOwnRedis();
const { h, roles } = await startFaultHarness(redis, { redisUrl: redis.url, env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100,100' } });

const hold = (minutes: number) => BigInt(minutes) * MINUTE_NANO;

t.test('100 concurrent admissions against credit for 17: exactly 17 admitted, nothing overdrawn', async (t) => {
  const { tenant, agent } = await fundedAgent(h, { minutes: 17, maxConcurrentSessions: 200, agent: { maxDurationSeconds: 60 } }); // hold = 1 minute
  const results = await Promise.all(
    Array.from({ length: 100 }, () => h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId } })),
  );
  const by = (code: number) => results.filter((r) => r.statusCode === code).length;
  t.equal(by(201), 17);
  t.equal(by(402), 83);
  const [w] = await h.ctx.sql`select balance_nano_usd, held_nano_usd from wallets where project_id = ${tenant.projectId}`;
  t.same([w.balance_nano_usd, w.held_nano_usd], [hold(17), hold(17)]);
  t.equal(await countSlots(h.ctx, tenant.projectId), 17, 'refused admissions gave their slots back');
});

t.test('duplicate end signals at once charge once', async (t) => {
  const { tenant, agent } = await fundedAgent(h, { minutes: 100 });
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId } });
  const { session, ws_url } = res.json() as { session: { id: string }; ws_url: string };
  const act = await activateSession(h.ctx, session.id, new URL(ws_url).searchParams.get('token')!, 'node-a');
  t.ok(act.ok);
  const ends = await Promise.all(Array.from({ length: 8 }, (_, i) => endSession(h.ctx, session.id, { outcome: 'completed', endReason: i % 2 ? 'caller_hangup' : 'agent_hangup' })));
  t.equal(ends.filter((e) => e?.settledNow).length, 1);
  const kinds = await h.ctx.sql`select kind, count(*)::int as n from wallet_ledger where session_id = ${session.id} group by kind order by kind`;
  t.same(kinds.map((k) => [k.kind, k.n]), [['charge', 1], ['hold', 1], ['release', 1]]);
});

t.test('kill -9 of the API during 40 admissions loses nothing', async (t) => {
  const { tenant, agent } = await fundedAgent(h, { minutes: 1000, maxConcurrentSessions: 100 });
  const port = await freePort();
  const api = await startRole(h, 'api', { PORT: String(port) });
  roles.push(api);
  const admitted: string[] = [];
  const requests = Array.from({ length: 40 }, () =>
    fetch(`http://127.0.0.1:${port}/v2/voice/sessions`, { method: 'POST', headers: { ...tenant.machine, 'content-type': 'application/json' }, body: JSON.stringify({ agent_id: agent.agentId }) })
      .then(async (r) => {
        if (r.status === 201) admitted.push(((await r.json()) as { session: { id: string } }).session.id);
      })
      .catch(() => {}),
  );
  await until(() => admitted.length >= 5, 10_000);
  await killRole(api);
  await Promise.all(requests);
  t.ok(admitted.length < 40, `killed mid-way (${admitted.length} of 40 answered 201)`);

  const rows = await h.ctx.sql`select id, hold_nano_usd from voice_sessions where project_id = ${tenant.projectId}`;
  const ids = new Set(rows.map((r) => r.id as string));
  t.ok(admitted.every((id) => ids.has(id)), 'every 201 is a session in Postgres');
  const holds = await h.ctx.sql`select count(*)::int as n, coalesce(sum(amount_nano_usd), 0)::bigint as sum from wallet_ledger where project_id = ${tenant.projectId} and kind = 'hold'`;
  const [w] = await h.ctx.sql`select held_nano_usd from wallets where project_id = ${tenant.projectId}`;
  t.equal(holds[0].n, rows.length, 'one hold per session, none without one');
  t.equal(w.held_nano_usd, holds[0].sum, 'the wallet holds exactly what the ledger says');
  t.ok((await countSlots(h.ctx, tenant.projectId)) >= rows.length, 'every session holds its slot (a killed admission’s stray slot lapses with its lease)');

  // Their ws_urls expire unused: the sweeper gives every hold and slot back.
  await h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where project_id = ${tenant.projectId}`;
  await sweepOnce(h.ctx);
  const [after] = await h.ctx.sql`select held_nano_usd, balance_nano_usd from wallets where project_id = ${tenant.projectId}`;
  t.same([after.held_nano_usd, after.balance_nano_usd], [0n, hold(1000)], 'all holds released, nothing charged');
});

t.test('webhooks through FLUSHALL and a Redis restart: none lost, ids stable', async (t) => {
  const keyring = `t1:${randomBytes(32).toString('base64')}`;
  h.ctx.keyring = Keyring.parse(keyring);
  const tenant = await createTenant(h);
  const rx = await startReceiver();
  t.teardown(() => rx.close());
  // Every delivery's first attempt fails, so its retry waits in Redis when Redis loses it.
  const seen = new Set<string>();
  rx.respond((r) => {
    if (seen.has(r.id)) return { status: 204 };
    seen.add(r.id);
    return { status: 503 };
  });
  let stop = await startWebhookWorkers(h.ctx, { concurrency: 4, sweepIntervalMs: 200, overdueGraceMs: 500 });
  t.teardown(() => stop());

  for (const fault of ['FLUSHALL', 'restart'] as const) {
    const endpoints = await Promise.all(Array.from({ length: 5 }, () => createEndpoint(h, tenant, rx.url)));
    const ids = await Promise.all(endpoints.map(async (e) => (await ping(h, tenant, e.id)).delivery_id));
    await until(() => ids.every((id) => seen.has(id)), 10_000);
    if (fault === 'FLUSHALL') await h.ctx.redis.flushall();
    else {
      await stop();
      await redis.stop();
      await redis.start();
      await sleep(1000);
      stop = await startWebhookWorkers(h.ctx, { concurrency: 4, sweepIntervalMs: 200, overdueGraceMs: 500 });
    }
    for (const id of ids) await waitForStatus(h, id, 'delivered', 20_000);
    const got = rx.received.filter((r) => ids.includes(r.id));
    t.same(new Set(got.map((r) => r.id)), new Set(ids), `${fault}: every delivery arrived under its own webhook-id`);
    t.ok(ids.every((id) => got.filter((r) => r.id === id).length >= 2), `${fault}: the retry carried the same id`);
  }
});
