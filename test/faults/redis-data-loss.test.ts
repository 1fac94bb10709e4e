import t, { type Test } from 'tap';
import { startOwnRedis } from '../helpers/own-redis.js';
import { countSlots } from '../../src/sessions/slots.js';
import { admit, connect, mediaUrl } from '../media/client.js';
import { admitAndConnect, framesSince, fundedAgent, sleep, startFaultHarness, startRole, streamAudio, until, type LiveCall } from './support.js';

// Deliverable 3: limits that survive Redis losing its data. max_concurrent_sessions is 4: three
// calls run on a media node in its own process and a fourth session is admitted but not yet
// connected. Redis then loses everything, by FLUSHALL and by a restart without persistence.
// Six more admissions are refused (the slot sets are rebuilt from Postgres before any slot is
// taken, and admission also counts live sessions in Postgres), the node's renewal never pushes
// the project past its limit, and the admitted fourth session still connects.

const redis = await startOwnRedis();
const { h, roles } = await startFaultHarness(redis, { redisUrl: redis.url });

const { tenant, agent } = await fundedAgent(h, { minutes: 200, maxConcurrentSessions: 4 });
const media = await startRole(h, 'media');
roles.push(media);
const calls = await admitAndConnect(h, tenant, agent.agentId, media.port, 3);
const stopAudio = streamAudio(calls);
t.teardown(stopAudio);

const liveCount = async () =>
  (await h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${tenant.projectId} and settled_at is null`)[0].n as number;

/** Six admissions at once, each retried while it gets 503 (Redis reconnecting, rebuild under way). */
async function sixAdmissions(): Promise<number[]> {
  return Promise.all(
    Array.from({ length: 6 }, async () => {
      for (let i = 0; ; i++) {
        const r = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId } });
        if (r.statusCode !== 503 || i === 40) return r.statusCode;
        await sleep(250);
      }
    }),
  );
}

async function checkLimitHeld(t: Test) {
  const pendingSlots = 1;
  const statuses = await sixAdmissions();
  t.same(statuses, [429, 429, 429, 429, 429, 429], 'six more admissions refused');
  t.equal(await liveCount(), 3 + pendingSlots, 'Postgres still has only the sessions admitted before');
  t.ok((await countSlots(h.ctx, tenant.projectId)) <= 4, 'never more slots than the limit');
  // The node renews every 10 s: its renewal must not add past the limit either.
  await sleep(11_000);
  t.equal(await countSlots(h.ctx, tenant.projectId), 3 + pendingSlots, 'after a renewal: exactly the live sessions hold slots');
  const since = performance.now() - 1000;
  t.ok(calls.every((c: LiveCall) => framesSince(c, since) >= 40), 'the calls kept their audio');
}

t.test('FLUSHALL: slots rebuilt from Postgres, the limit holds, a pending session still connects', async (t) => {
  const pending = await admit(h, tenant.machine, { agent_id: agent.agentId });
  t.equal(await countSlots(h.ctx, tenant.projectId), 4);
  await h.ctx.redis.flushall();
  await checkLimitHeld(t);

  const late = connect(mediaUrl(pending.ws_url, media.port));
  await late.opened;
  await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${pending.session.id}`)[0].status === 'active');
  t.pass('the session admitted before the loss connects on its rebuilt slot');
  late.ws.send(JSON.stringify({ type: 'stop' }));
  await late.closed;
  await until(async () => (await liveCount()) === 3);
});

t.test('Redis restarted without persistence: the same', async (t) => {
  const pending = await admit(h, tenant.machine, { agent_id: agent.agentId });
  await redis.stop();
  await redis.start();
  await checkLimitHeld(t);
  const late = connect(mediaUrl(pending.ws_url, media.port));
  await late.opened;
  await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${pending.session.id}`)[0].status === 'active');
  late.ws.close();
  t.equal(media.logs.filter((l) => l.msg === 'lost concurrency slots not taken again: project at its limit').length, 0);
});
