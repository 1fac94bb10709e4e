import t, { type Test } from 'tap';
import { startOwnRedis } from '../helpers/own-redis.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { countSlots } from '../../src/sessions/slots.js';
import { fundedAgent, sleep, startFaultHarness, timed } from './support.js';

// Deliverable 2: the control plane while Redis is away, both ways it goes away: stopped
// (connections refused) and hung (SIGSTOP: connected, silent). Admission answers 503 with
// Retry-After within a second and holds no lock while it waits; login, console reads and the
// machine door's reads work normally (the rate limiter fails open); the Postgres pool is never
// exhausted, so nothing queues behind the admissions.

const BOUND_MS = 1500; // "within a second", measured generously on a busy 2-core machine
const redis = await startOwnRedis();
const { h } = await startFaultHarness(redis, { redisUrl: redis.url });

const { tenant, agent } = await fundedAgent(h, { minutes: 100, maxConcurrentSessions: 50 });

const inject = (method: 'GET' | 'POST', url: string, headers: Record<string, string>, payload?: object) =>
  timed(() => h.app.inject({ method, url, headers, payload }));

/** One burst of what the outage must not break, all at once: 10 admissions beside reads and a login. */
async function burst() {
  const admissions = Array.from({ length: 10 }, () => inject('POST', '/v2/voice/sessions', tenant.machine, { agent_id: agent.agentId }));
  const consoleReads = Array.from({ length: 10 }, (_, i) =>
    inject('GET', `/console/v2/projects/${tenant.projectId}/${i % 2 ? 'wallet' : 'voice/sessions'}`, tenant.bearer),
  );
  const machineReads = Array.from({ length: 5 }, () => inject('GET', '/v2/voice/sessions', tenant.machine));
  const login = inject('POST', '/console/auth/login', {}, { email: tenant.email, password: PASSWORD });
  return { admissions: await Promise.all(admissions), consoleReads: await Promise.all(consoleReads), machineReads: await Promise.all(machineReads), login: await login };
}

type Burst = Awaited<ReturnType<typeof burst>>;
const slowest = (rs: { ms: number }[]) => Math.round(Math.max(...rs.map((r) => r.ms)));

function checkBurst(t: Test, b: Burst, what: string) {
  for (const a of b.admissions) {
    t.equal(a.value.statusCode, 503, `${what}: admission 503`);
    t.ok(Number(a.value.headers['retry-after']) >= 1, 'with Retry-After');
  }
  t.same(b.admissions[0].value.json(), { detail: 'concurrency slots unavailable, retry later' });
  t.ok(b.consoleReads.every((r) => r.value.statusCode === 200), `${what}: console reads 200`);
  t.ok(b.machineReads.every((r) => r.value.statusCode === 200), `${what}: machine-door reads 200 (rate limiter fails open)`);
  t.ok(b.machineReads.every((r) => r.value.headers['x-ratelimit-limit'] !== undefined), 'rate-limit headers still present');
  t.equal(b.login.value.statusCode, 200, `${what}: login 200`);
  const figures = { admission: slowest(b.admissions), console: slowest(b.consoleReads), machine: slowest(b.machineReads), login: Math.round(b.login.ms) };
  t.comment(`${what}: slowest answers (ms) ${JSON.stringify(figures)}`);
  for (const [k, ms] of Object.entries(figures)) t.ok(ms < BOUND_MS, `${what}: ${k} answered in ${ms} ms`);
}

t.test('Redis stopped: 503 for admission, everything else normal; back: admissions resume', async (t) => {
  await redis.stop();
  await sleep(200);
  checkBurst(t, await burst(), 'stopped');
  checkBurst(t, await burst(), 'stopped, second burst');
  const held = await h.ctx.sql`select held_nano_usd from wallets where project_id = ${tenant.projectId}`;
  t.equal(held[0].held_nano_usd, 0n, 'no hold was placed');

  await redis.start(); // empty: the first admission rebuilds the slot sets
  await sleep(1500); // the client reconnects (ioredis backoff)
  const ok = await inject('POST', '/v2/voice/sessions', tenant.machine, { agent_id: agent.agentId });
  t.equal(ok.value.statusCode, 201, 'admitted once Redis is back');
  t.equal(await countSlots(h.ctx, tenant.projectId), 1);
});

t.test('Redis hung (SIGSTOP): the same within the command timeout', async (t) => {
  redis.pause();
  try {
    checkBurst(t, await burst(), 'hung');
  } finally {
    redis.resume();
  }
  await sleep(1200); // after a failure the clients wait a second before asking Redis again
  // A slot taken late by the woken Redis was given back behind it.
  t.equal(await countSlots(h.ctx, tenant.projectId), 1, 'only the admitted session holds a slot');
  const ok = await inject('POST', '/v2/voice/sessions', tenant.machine, { agent_id: agent.agentId });
  t.equal(ok.value.statusCode, 201);
});
