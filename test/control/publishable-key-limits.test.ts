import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';

// Contract §11: a publishable key's own limits, set on create and PATCH, listed, and never a
// concurrency budget above the project's.

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);
const base = (projectId: string) => `/console/v2/projects/${projectId}/publishable-keys`;
const ORIGINS = ['https://app.example.com'];

const create = (payload: object, tenant = a) => h.app.inject({ method: 'POST', url: base(tenant.projectId), headers: tenant.bearer, payload });
const patch = (id: string, payload: object, tenant = a) => h.app.inject({ method: 'PATCH', url: `${base(tenant.projectId)}/${id}`, headers: tenant.bearer, payload });

t.test('defaults: 5 sessions, 15 s to connect, 300 s calls; listed without the key', async (t) => {
  const res = await create({ name: 'site', origins: ORIGINS });
  t.equal(res.statusCode, 201);
  t.match(res.json(), { max_concurrent_sessions: 5, connect_window_seconds: 15, max_duration_seconds: 300 });
  const list = await h.app.inject({ method: 'GET', url: base(a.projectId), headers: a.bearer });
  const listed = list.json().find((k: { id: string }) => k.id === res.json().id);
  t.same(
    { ...listed, created_at: undefined },
    { id: res.json().id, name: 'site', origins: ORIGINS, agent_ids: null, max_concurrent_sessions: 5, connect_window_seconds: 15, max_duration_seconds: 300, created_at: undefined },
  );
});

t.test('set on create; a budget above the project limit is 422; the default follows a lower project limit', async (t) => {
  const set = await create({ name: 'set', origins: ORIGINS, max_concurrent_sessions: 10, connect_window_seconds: 5, max_duration_seconds: 60 });
  t.equal(set.statusCode, 201);
  t.match(set.json(), { max_concurrent_sessions: 10, connect_window_seconds: 5, max_duration_seconds: 60 });

  const above = await create({ name: 'greedy', origins: ORIGINS, max_concurrent_sessions: 11 });
  t.equal(above.statusCode, 422, 'the project allows 10');
  t.same(above.json().detail[0].loc, ['body', 'max_concurrent_sessions']);
  t.match(above.json().detail[0].msg, /project's max_concurrent_sessions \(10\)/);

  await setProjectLimits(h.ctx, b.projectId, { max_concurrent_sessions: 3 });
  const small = await create({ name: 'small', origins: ORIGINS }, b);
  t.equal(small.statusCode, 201);
  t.equal(small.json().max_concurrent_sessions, 3, 'default 5 capped by the project limit 3');
});

t.test('out-of-range limits answer 422 at their field', async (t) => {
  const cases: [object, string][] = [
    [{ connect_window_seconds: 4 }, 'connect_window_seconds'],
    [{ connect_window_seconds: 61 }, 'connect_window_seconds'],
    [{ max_duration_seconds: 0 }, 'max_duration_seconds'],
    [{ max_duration_seconds: 14_401 }, 'max_duration_seconds'],
    [{ max_concurrent_sessions: -1 }, 'max_concurrent_sessions'],
    [{ max_concurrent_sessions: 2.5 }, 'max_concurrent_sessions'],
    [{ max_duration_seconds: '60' }, 'max_duration_seconds'],
  ];
  for (const [limits, field] of cases) {
    const res = await create({ name: 'x', origins: ORIGINS, ...limits });
    t.equal(res.statusCode, 422, JSON.stringify(limits));
    t.same(res.json().detail[0].loc, ['body', field]);
  }
});

t.test('PATCH changes only the sent fields, under the same rules', async (t) => {
  const { key: _shownOnce, ...key } = (await create({ name: 'p', origins: ORIGINS })).json();
  const res = await patch(key.id, { max_concurrent_sessions: 2, connect_window_seconds: 30 });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { ...key, max_concurrent_sessions: 2, connect_window_seconds: 30 });
  t.notOk('key' in res.json(), 'the key is never shown again');

  const renamed = await patch(key.id, { name: 'renamed', origins: ['https://b.example.com'], max_duration_seconds: 120 });
  t.match(renamed.json(), { name: 'renamed', origins: ['https://b.example.com'], max_concurrent_sessions: 2, connect_window_seconds: 30, max_duration_seconds: 120 });
  const unchanged = await patch(key.id, {});
  t.same(unchanged.json(), renamed.json(), 'an empty body changes nothing');

  const above = await patch(key.id, { max_concurrent_sessions: 11 });
  t.equal(above.statusCode, 422);
  t.same(above.json().detail[0].loc, ['body', 'max_concurrent_sessions']);
  const unknown = await patch(key.id, { key_hash: 'x' });
  t.equal(unknown.statusCode, 422);
  t.same(unknown.json().detail[0].loc, ['body', 'key_hash']);

  const foreign = await h.app.inject({ method: 'PATCH', url: `${base(a.projectId)}/${key.id}`, headers: b.bearer, payload: { name: 'mine' } });
  t.equal(foreign.statusCode, 404, "another owner's project");
  const crossProject = await patch(key.id, { name: 'mine' }, b);
  t.equal(crossProject.statusCode, 404, "a key of another project, through one's own project");
  await h.app.inject({ method: 'DELETE', url: `${base(a.projectId)}/${key.id}`, headers: a.bearer });
  const revoked = await patch(key.id, { name: 'again' });
  t.equal(revoked.statusCode, 404);
  t.same(revoked.json(), { detail: 'publishable key not found' });
});
