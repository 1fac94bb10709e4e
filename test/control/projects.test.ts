import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);

t.test('projects: create, list, get, rename; another owner sees 404', async (t) => {
  const created = await h.app.inject({ method: 'POST', url: '/console/v2/projects', headers: a.bearer, payload: { name: 'second' } });
  t.equal(created.statusCode, 201);
  const p = created.json();
  t.same({ rpm: p.api_rpm, max: p.max_concurrent_sessions, revision: p.revision }, { rpm: 600, max: 10, revision: 1 });
  const list = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: a.bearer });
  t.same(list.json().map((x: { name: string }) => x.name), ['second', 'test project'], 'newest first');
  const renamed = await h.app.inject({ method: 'PATCH', url: `/console/v2/projects/${p.id}`, headers: a.bearer, payload: { name: 'renamed' } });
  t.equal(renamed.json().name, 'renamed');
  const limits = await h.app.inject({ method: 'PATCH', url: `/console/v2/projects/${p.id}`, headers: a.bearer, payload: { api_rpm: 1 } });
  t.equal(limits.statusCode, 422, 'limits change only through the admin command');
  for (const [method, url] of [['GET', `/console/v2/projects/${p.id}`], ['PATCH', `/console/v2/projects/${p.id}`], ['GET', `/console/v2/projects/${p.id}/api-keys`]] as const) {
    const res = await h.app.inject({ method, url, headers: b.bearer, payload: method === 'PATCH' ? { name: 'steal' } : undefined });
    t.equal(res.statusCode, 404, `${method} ${url} by another owner`);
    t.same(res.json(), { detail: 'project not found' });
  }
});

t.test('API keys: shown once, listed without key, revoked → 401 invalid API key', async (t) => {
  const url = `/console/v2/projects/${a.projectId}/api-keys`;
  const created = await h.app.inject({ method: 'POST', url, headers: a.bearer, payload: { name: 'ci', scopes: ['voice:read'] } });
  t.equal(created.statusCode, 201);
  const key = created.json();
  t.match(key.key, /^vk_[0-9A-Za-z]{43}$/);
  t.equal(key.prefix, key.key.slice(0, 12));
  const list = await h.app.inject({ method: 'GET', url, headers: a.bearer });
  t.notMatch(list.body, key.key);
  t.ok(list.json().some((k: { id: string }) => k.id === key.id));
  const use = await h.app.inject({ method: 'GET', url: '/v2/providers/catalogue', headers: { 'x-api-key': key.key } });
  t.equal(use.statusCode, 200);
  const revoke = await h.app.inject({ method: 'DELETE', url: `${url}/${key.id}`, headers: a.bearer });
  t.equal(revoke.statusCode, 200);
  const after = await h.app.inject({ method: 'GET', url: '/v2/providers/catalogue', headers: { 'x-api-key': key.key } });
  t.equal(after.statusCode, 401);
  t.same(after.json(), { detail: 'invalid API key' });
  const again = await h.app.inject({ method: 'DELETE', url: `${url}/${key.id}`, headers: a.bearer });
  t.equal(again.statusCode, 404);
  const bad = await h.app.inject({ method: 'POST', url, headers: a.bearer, payload: { name: 'x', scopes: ['voice:fly'] } });
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['body', 'scopes', 0]);
});
