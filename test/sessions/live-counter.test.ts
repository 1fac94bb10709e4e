// wallets.live_sessions (migration 0020): the project's unsettled sessions, kept by triggers in
// the transactions that insert and settle them. Admission trusts it below the limit and counts
// live sessions exactly at or above it; these tests hold it to the rows through admissions,
// refusals, failed admissions, settlement (twice), the sweeper and a delete, and check that the
// Postgres check alone keeps concurrent admissions within the limit when Redis lost the slots.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { admitCall } from '../../src/sessions/admission.js';
import { endSession } from '../../src/sessions/settlement.js';
import { releaseSlot } from '../../src/sessions/slots.js';
import { sweepOnce } from '../../src/sessions/sweepers.js';
import { createAgent, fund, MINUTE_NANO } from './fixtures.js';

const h = await startHarness();
t.teardown(h.close);

const admit = (machine: Record<string, string>, agentId: string) =>
  h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: machine, payload: { agent_id: agentId } });

async function counter(projectId: string): Promise<{ counter: number; unsettled: number }> {
  const [r] = await h.ctx.sql<{ counter: number; unsettled: number }[]>`
    select w.live_sessions as counter,
      (select count(*)::int from voice_sessions s where s.project_id = w.project_id and s.settled_at is null) as unsettled
    from wallets w where w.project_id = ${projectId}`;
  return r;
}

async function tenant(limit: number) {
  const a = await createTenant(h);
  await setProjectLimits(h.ctx, a.projectId, { max_concurrent_sessions: limit });
  const agent = await createAgent(h, a.projectId);
  await fund(h, a.projectId, 1000n * MINUTE_NANO);
  return { ...a, agentId: agent.agentId };
}

/** Redis forgets the sessions' slots (as after a data loss); Postgres still has their rows. */
const loseSlots = (projectId: string, ids: string[]) => Promise.all(ids.map((id) => releaseSlot(h.ctx, projectId, id)));
/** The sessions' ws_url windows close; the sweeper has not settled them yet. */
const expireTokens = (ids: string[]) => h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where id = any(${ids}::uuid[])`;

t.test('the counter follows admissions, refusals, settlement (once) and a delete', async (t) => {
  const a = await tenant(3);
  const results = await Promise.all(Array.from({ length: 8 }, () => admit(a.machine, a.agentId)));
  t.same(results.map((r) => r.statusCode).sort(), [201, 201, 201, 429, 429, 429, 429, 429]);
  t.same(await counter(a.projectId), { counter: 3, unsettled: 3 });
  const ids = results.filter((r) => r.statusCode === 201).map((r) => r.json().session.id as string);

  t.equal((await endSession(h.ctx, ids[0], { outcome: 'completed', endReason: 'caller_hangup' }))?.settledNow, true);
  t.equal((await endSession(h.ctx, ids[0], { outcome: 'completed', endReason: 'caller_hangup' }))?.settledNow, false, 'a duplicate end signal');
  t.same(await counter(a.projectId), { counter: 2, unsettled: 2 });

  await h.ctx.sql`delete from voice_sessions where id = ${ids[1]}`;
  t.same(await counter(a.projectId), { counter: 1, unsettled: 1 });
  await h.ctx.sql`delete from voice_sessions where id = ${ids[0]}`; // settled: no change
  t.same(await counter(a.projectId), { counter: 1, unsettled: 1 });
});

t.test('an admission whose transaction fails leaves the counter as it was', async (t) => {
  const a = await tenant(5);
  await t.rejects(
    admitCall(h.ctx, a.projectId, {
      direction: 'web',
      agent_id: a.agentId,
      variables: {},
      sample_rate_in: 16000,
      sample_rate_out: 16000,
      encoding: 'pcm16',
      tokenTtlSeconds: 60,
      finish: async () => {
        throw new Error('the last statement failed');
      },
    }),
    /the last statement failed/,
  );
  t.same(await counter(a.projectId), { counter: 0, unsettled: 0 });
  t.equal((await admit(a.machine, a.agentId)).statusCode, 201);
  t.same(await counter(a.projectId), { counter: 1, unsettled: 1 });
});

t.test('the sweeper settling expired sessions brings the counter down', async (t) => {
  const a = await tenant(5);
  const ids = await Promise.all([1, 2, 3].map(async () => (await admit(a.machine, a.agentId)).json().session.id as string));
  t.same(await counter(a.projectId), { counter: 3, unsettled: 3 });
  await expireTokens(ids.slice(0, 2));
  t.same(await counter(a.projectId), { counter: 3, unsettled: 3 }, 'expired but not swept: still unsettled');
  await sweepOnce(h.ctx);
  t.same(await counter(a.projectId), { counter: 1, unsettled: 1 });
});

t.test('Redis lost the slots: concurrent admissions stop at the limit in Postgres', async (t) => {
  const a = await tenant(5);
  const before = await Promise.all([1, 2].map(async () => (await admit(a.machine, a.agentId)).json().session.id as string));
  await loseSlots(a.projectId, before);
  // Redis has room for 5 more; Postgres knows of 2 live sessions, so only 3 of 20 get in.
  const results = await Promise.all(Array.from({ length: 20 }, () => admit(a.machine, a.agentId)));
  t.equal(results.filter((r) => r.statusCode === 201).length, 3);
  t.equal(results.filter((r) => r.statusCode === 429).length, 17);
  t.same(await counter(a.projectId), { counter: 5, unsettled: 5 });
});

t.test('at the limit the exact count decides: expired unswept sessions do not block, live ones do', async (t) => {
  const a = await tenant(5);
  const before = await Promise.all([1, 2, 3, 4].map(async () => (await admit(a.machine, a.agentId)).json().session.id as string));
  await expireTokens(before.slice(0, 2)); // 4 unsettled, 2 live
  await loseSlots(a.projectId, before);
  // Redis admits 5 of 20; the counter (4) lets the first through, the exact count (3, then 4)
  // the next two, and the rest see 5 live sessions.
  const results = await Promise.all(Array.from({ length: 20 }, () => admit(a.machine, a.agentId)));
  t.equal(results.filter((r) => r.statusCode === 201).length, 3);
  t.same(await counter(a.projectId), { counter: 7, unsettled: 7 });
  const [live] = await h.ctx.sql`select count(*)::int as n from voice_sessions
    where project_id = ${a.projectId} and settled_at is null and token_expires_at > now()`;
  t.equal(live.n, 5, 'exactly the limit live');
  await sweepOnce(h.ctx);
  t.same(await counter(a.projectId), { counter: 5, unsettled: 5 });
});

t.test('a wallet created after its project has sessions starts at their number', async (t) => {
  const a = await tenant(5);
  await admit(a.machine, a.agentId);
  await admit(a.machine, a.agentId);
  const [w] = await h.ctx.sql`delete from wallets where project_id = ${a.projectId} returning balance_nano_usd`;
  await h.ctx.sql`insert into wallets (project_id, balance_nano_usd) values (${a.projectId}, ${w.balance_nano_usd})`;
  t.same(await counter(a.projectId), { counter: 2, unsettled: 2 });
});
