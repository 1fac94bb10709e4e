import t from 'tap';
import { buildApp } from '../../src/control/app.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';

const h = await startHarness();
t.teardown(h.close);
const URL = '/v2/providers/catalogue'; // needs voice:read
/** Waits out the last seconds of a rate window so a test's requests fall in one window. */
async function awayFromWindowEdge() {
  const [sec] = (await h.ctx.redis.time()) as unknown as [string, string];
  const left = 60 - (Number(sec) % 60);
  if (left < 5) await new Promise((r) => setTimeout(r, left * 1000 + 100));
}
const get = (headers: Record<string, string>, app = h.app) => app.inject({ method: 'GET', url: URL, headers });

t.test('missing, malformed and unknown keys are 401 with the spec messages', async (t) => {
  const missing = await get({});
  t.equal(missing.statusCode, 401);
  t.same(missing.json(), { detail: 'missing API key' });
  for (const key of ['nope', `vk_${'0'.repeat(43)}`, `vk_${'0'.repeat(44)}`]) {
    const res = await get({ 'x-api-key': key });
    t.equal(res.statusCode, 401);
    t.same(res.json(), { detail: 'invalid API key' });
  }
});

t.test('a key without the scope gets 403 naming the scope, with rate headers', async (t) => {
  const tenant = await createTenant(h, ['webhook:read']);
  const res = await get(tenant.machine);
  t.equal(res.statusCode, 403);
  t.match(res.json().detail, /voice:read/);
  t.ok(res.headers['x-ratelimit-limit']);
});

t.test('a suspended project is 403 project unavailable', async (t) => {
  const tenant = await createTenant(h);
  await h.ctx.sql`update projects set suspended = true where id = ${tenant.projectId}`;
  const res = await get(tenant.machine);
  t.equal(res.statusCode, 403);
  t.same(res.json(), { detail: 'project unavailable' });
});

t.test('rate limit: headers on every response, 429 with Retry-After, shared by two API instances', async (t) => {
  const tenant = await createTenant(h);
  await setProjectLimits(h.ctx, tenant.projectId, { api_rpm: 4 });
  const second = await buildApp(h.ctx); // another API process on the same Redis
  await awayFromWindowEdge();
  t.teardown(() => second.close());
  const results = [];
  for (let i = 0; i < 6; i++) results.push(await get(tenant.machine, i % 2 ? second : h.app));
  const statuses = results.map((r) => r.statusCode);
  t.same(statuses.slice(0, 4), [200, 200, 200, 200]);
  t.same(statuses.slice(4), [429, 429]);
  t.same(results.map((r) => r.headers['x-ratelimit-limit']), ['4', '4', '4', '4', '4', '4']);
  t.same(results.slice(0, 4).map((r) => r.headers['x-ratelimit-remaining']), ['3', '2', '1', '0']);
  const limited = results[5];
  t.same(limited.json(), { detail: 'rate limit exceeded' });
  const retryAfter = Number(limited.headers['retry-after']);
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
  t.equal(limited.headers['x-ratelimit-reset'], limited.headers['retry-after']);

  await setProjectLimits(h.ctx, tenant.projectId, { api_rpm: 100 });
  const raised = await get(tenant.machine);
  t.equal(raised.statusCode, 200, 'a limit changed by the admin command applies at once');
  t.equal(raised.headers['x-ratelimit-limit'], '100');
});

t.test('projects are isolated in the rate window', async (t) => {
  const a = await createTenant(h);
  const b = await createTenant(h);
  await setProjectLimits(h.ctx, a.projectId, { api_rpm: 1 });
  await awayFromWindowEdge();
  await get(a.machine);
  t.equal((await get(a.machine)).statusCode, 429);
  t.equal((await get(b.machine)).statusCode, 200);
});
