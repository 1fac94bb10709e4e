import t from 'tap';
import { startOwnRedis } from '../helpers/own-redis.js';
import { countSlots } from '../../src/sessions/slots.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { admitAndConnect, framesSince, fundedAgent, ledgerKinds, sessionRow, sleep, startFaultHarness, startRole, streamAudio, until } from './support.js';

// Deliverable 1 of "Faults and abuse": Redis down for longer than every lease (36 s) while 10
// calls run on a media node in its own process, with the worker (sweepers every 5 s) in another.
// The calls keep their audio the whole time, nothing settles them, no call.failed is recorded,
// their slots come back once Redis does (it restarts empty), and each is billed for the seconds
// it was really connected.

const redis = await startOwnRedis();
const { h, roles } = await startFaultHarness(redis, { redisUrl: redis.url });

const OUTAGE_MS = 36_000;

t.test('10 live calls through a 36 s Redis outage: audio flows, none settled, billed by real seconds', async (t) => {
  const { tenant, agent } = await fundedAgent(h, { minutes: 200, maxConcurrentSessions: 20 });
  const media = await startRole(h, 'media');
  roles.push(media, await startRole(h, 'worker'));

  const calls = await admitAndConnect(h, tenant, agent.agentId, media.port, 10);
  const stopAudio = streamAudio(calls);
  t.teardown(stopAudio);
  await until(async () => calls.every((c) => framesSince(c, 0) > 0), 5000);

  await redis.stop();
  const outageStart = performance.now();
  let minFramesPerSecond = Infinity;
  while (performance.now() - outageStart < OUTAGE_MS) {
    await sleep(3000);
    const since = performance.now() - 1000;
    for (const c of calls) minFramesPerSecond = Math.min(minFramesPerSecond, framesSince(c, since));
  }
  const during = await h.ctx.sql`select status, settled_at from voice_sessions where id = any(${calls.map((c) => c.id)}::uuid[])`;
  t.ok(during.every((r) => r.status === 'active' && r.settled_at === null), 'no call was settled during the outage');
  t.ok(minFramesPerSecond >= 40, `every call kept its audio (worst second: ${minFramesPerSecond} of 50 frames)`);

  await redis.start(); // no persistence: it comes back empty
  // The node's next slot renewal (every 10 s) rebuilds the sets from Postgres.
  await until(async () => (await countSlots(h.ctx, tenant.projectId).catch(() => 0)) === 10, 15_000);
  t.equal(await countSlots(h.ctx, tenant.projectId), 10, 'the 10 calls hold their slots again');
  const since = performance.now() - 1000;
  t.ok(calls.every((c) => framesSince(c, since) >= 40), 'audio still flows after the outage');

  const failedEvents = await h.ctx.sql`select count(*)::int as n from webhook_events where project_id = ${tenant.projectId} and type = 'call.failed'`;
  t.equal(failedEvents[0].n, 0, 'no call.failed event');
  t.notOk(media.logs.some((l) => String(l.msg).includes('node lease lost')), 'the node never thought it lost its lease');

  // The callers hang up; each call is billed for what it was connected.
  const endedAt = performance.now();
  for (const c of calls) c.client.ws.send(JSON.stringify({ type: 'stop' }));
  await Promise.all(calls.map((c) => c.client.closed));
  await until(async () => (await h.ctx.sql`select count(*)::int as n from voice_sessions where id = any(${calls.map((c) => c.id)}::uuid[]) and settled_at is not null`)[0].n === 10, 10_000);
  for (const c of calls) {
    const row = await sessionRow(h, c.id);
    const realSeconds = (endedAt - c.openedAt) / 1000;
    t.match(row, { status: 'completed', end_reason: 'caller_hangup' });
    const billed = row.connected_seconds as number;
    t.ok(billed >= Math.floor(realSeconds) && billed <= Math.ceil(realSeconds) + 1, `billed ${billed} s for ${realSeconds.toFixed(1)} s of media`);
    t.equal(row.cost_nano_usd, BigInt(Math.ceil(billed / 60)) * MINUTE_NANO);
    t.same(await ledgerKinds(h, c.id), { hold: 1, release: 1, charge: 1 });
  }
});
