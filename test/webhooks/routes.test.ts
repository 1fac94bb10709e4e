import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';
import { ManualClock } from '../../src/shared/clock.js';
import { KeyringError } from '../../src/shared/crypto/keyring.js';

// Every webhook endpoint route on both doors, with its errors. No worker runs here: a test
// ping is only recorded (and queued), which is all its 202 promises.

// Start mid-minute so the ping dedupe window is deterministic.
const clock = new ManualClock(Math.floor(Date.now() / 60_000) * 60_000 + 20_000);
const h = await startHarness({ clock });
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);

type Door = { name: string; base: (x: Tenant) => string; auth: (x: Tenant) => Record<string, string> };
const doors: Door[] = [
  { name: 'machine', base: (x) => `/v2/projects/${x.projectId}/webhooks`, auth: (x) => x.machine },
  { name: 'console', base: (x) => `/console/v2/projects/${x.projectId}/webhooks`, auth: (x) => x.bearer },
];

const create = (d: Door, x: Tenant, payload: unknown) =>
  h.app.inject({ method: 'POST', url: d.base(x), headers: d.auth(x), payload: payload as object });

for (const d of doors) {
  t.test(`${d.name}: create returns the secret once, list never does`, async (t) => {
    const res = await create(d, a, { name: 'orders', url: 'http://127.0.0.1:9/hook', event_types: ['call.completed', 'call.completed'] });
    t.equal(res.statusCode, 201);
    const body = res.json();
    t.match(body.signing_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    t.equal(Buffer.from(body.signing_secret.slice(6), 'base64').length, 32);
    t.equal(body.secret_hint, body.signing_secret.slice(-4));
    t.same(
      { name: body.name, url: body.url, event_types: body.event_types, status: body.status, revision: body.revision, project_id: body.project_id },
      { name: 'orders', url: 'http://127.0.0.1:9/hook', event_types: ['call.completed'], status: 'active', revision: 1, project_id: a.projectId },
    );
    t.match(body.created_at, /^\d{4}-\d\d-\d\dT/);

    const list = await h.app.inject({ method: 'GET', url: d.base(a), headers: d.auth(a) });
    t.equal(list.statusCode, 200);
    const found = list.json().find((e: { id: string }) => e.id === body.id);
    t.ok(found);
    t.notOk('signing_secret' in found);
    t.notMatch(list.body, body.signing_secret.slice(6, 30));
    const stored = await h.ctx.sql`select secret_sealed from webhook_endpoints where id = ${body.id}`;
    t.notMatch(stored[0].secret_sealed, body.signing_secret.slice(6));
    t.equal(h.ctx.keyring.decrypt(stored[0].secret_sealed, body.id), body.signing_secret);
  });

  t.test(`${d.name}: empty or absent event_types means all`, async (t) => {
    const res = await create(d, a, { name: 'all', url: 'http://127.0.0.1:9/all' });
    t.equal(res.statusCode, 201);
    t.same(res.json().event_types, []);
  });

  t.test(`${d.name}: body validation`, async (t) => {
    const cases: [unknown, (string | number)[]][] = [
      [{ name: '', url: 'http://127.0.0.1:9/x' }, ['body', 'name']],
      [{ name: 'n'.repeat(121), url: 'http://127.0.0.1:9/x' }, ['body', 'name']],
      [{ url: 'http://127.0.0.1:9/x' }, ['body', 'name']],
      [{ name: 'x', url: 'http:/a' }, ['body', 'url']],
      [{ name: 'x', url: `http://127.0.0.1/${'a'.repeat(2048)}` }, ['body', 'url']],
      [{ name: 'x', url: 'not a url at all' }, ['body', 'url']],
      [{ name: 'x', url: 'ftp://example.com/x' }, ['body', 'url']],
      [{ name: 'x', url: 'https://user:pw@example.com/x' }, ['body', 'url']],
      [{ name: 'x', url: 'http://127.0.0.1:9/x', event_types: ['call.started'] }, ['body', 'event_types', 0]],
      [{ name: 'x', url: 'http://127.0.0.1:9/x', event_types: Array(51).fill('call.failed') }, ['body', 'event_types']],
      [{ name: 'x', url: 'http://127.0.0.1:9/x', secret: 'mine' }, ['body', 'secret']],
    ];
    for (const [payload, loc] of cases) {
      const res = await create(d, a, payload);
      t.equal(res.statusCode, 422, JSON.stringify(payload).slice(0, 80));
      t.same(res.json().detail[0].loc, loc);
    }
  });

  t.test(`${d.name}: disable, include_disabled, disable again, ping a disabled endpoint`, async (t) => {
    const ep = (await create(d, a, { name: 'gone', url: 'http://127.0.0.1:9/gone' })).json();
    const del = await h.app.inject({ method: 'DELETE', url: `${d.base(a)}/${ep.id}`, headers: d.auth(a) });
    t.equal(del.statusCode, 200);
    t.equal(del.json().status, 'disabled');
    t.equal(del.json().revision, 2);
    t.notOk('signing_secret' in del.json());

    const active = (await h.app.inject({ method: 'GET', url: d.base(a), headers: d.auth(a) })).json();
    t.notOk(active.some((e: { id: string }) => e.id === ep.id));
    const all = (await h.app.inject({ method: 'GET', url: `${d.base(a)}?include_disabled=true`, headers: d.auth(a) })).json();
    t.ok(all.some((e: { id: string; status: string }) => e.id === ep.id && e.status === 'disabled'));
    const bad = await h.app.inject({ method: 'GET', url: `${d.base(a)}?include_disabled=yes`, headers: d.auth(a) });
    t.equal(bad.statusCode, 422);
    t.same(bad.json().detail[0].loc, ['query', 'include_disabled']);

    // Documented choice: the spec's transition is from "any" state, so this succeeds again.
    const again = await h.app.inject({ method: 'DELETE', url: `${d.base(a)}/${ep.id}`, headers: d.auth(a) });
    t.equal(again.statusCode, 200);
    t.equal(again.json().revision, 3);

    const ping = await h.app.inject({ method: 'POST', url: `${d.base(a)}/${ep.id}/test`, headers: d.auth(a) });
    t.equal(ping.statusCode, 409);
    t.type(ping.json().detail, 'string');
  });

  t.test(`${d.name}: test ping is deduplicated per endpoint, revision and minute`, async (t) => {
    const ep = (await create(d, a, { name: 'ping', url: 'http://127.0.0.1:9/ping', event_types: ['call.failed'] })).json();
    const first = await h.app.inject({ method: 'POST', url: `${d.base(a)}/${ep.id}/test`, headers: d.auth(a) });
    t.equal(first.statusCode, 202);
    const r1 = first.json();
    t.same(Object.keys(r1).sort(), ['delivery_id', 'endpoint_id', 'event_type', 'queued']);
    t.same({ ...r1, delivery_id: 'x' }, { delivery_id: 'x', endpoint_id: ep.id, event_type: 'webhook.ping', queued: true });

    const second = (await h.app.inject({ method: 'POST', url: `${d.base(a)}/${ep.id}/test`, headers: d.auth(a) })).json();
    t.same(second, { ...r1, queued: false });

    clock.advance(60_000);
    const third = (await h.app.inject({ method: 'POST', url: `${d.base(a)}/${ep.id}/test`, headers: d.auth(a) })).json();
    t.equal(third.queued, true);
    t.not(third.delivery_id, r1.delivery_id);
    const rows = await h.ctx.sql`select count(*)::int as n from webhook_deliveries where endpoint_id = ${ep.id}`;
    t.equal(rows[0].n, 2);
  });

  t.test(`${d.name}: another project's endpoint is 404; a bad id is 422`, async (t) => {
    const other = (await create(d, b, { name: 'b', url: 'http://127.0.0.1:9/b' })).json();
    for (const [method, suffix] of [['DELETE', ''], ['POST', '/test']] as const) {
      const res = await h.app.inject({ method, url: `${d.base(a)}/${other.id}${suffix}`, headers: d.auth(a) });
      t.equal(res.statusCode, 404, `${method} ${suffix}`);
      t.type(res.json().detail, 'string');
    }
    const missing = await h.app.inject({ method: 'DELETE', url: `${d.base(a)}/00000000-0000-4000-8000-000000000000`, headers: d.auth(a) });
    t.equal(missing.statusCode, 404);
    const bad = await h.app.inject({ method: 'POST', url: `${d.base(a)}/nope/test`, headers: d.auth(a) });
    t.equal(bad.statusCode, 422);
    t.same(bad.json().detail[0].loc, ['path', 'endpoint_id']);
    // The other tenant's endpoint is untouched.
    const still = (await h.app.inject({ method: 'GET', url: d.base(b), headers: d.auth(b) })).json();
    t.ok(still.some((e: { id: string; status: string }) => e.id === other.id && e.status === 'active'));
  });

  t.test(`${d.name}: a project that is not the caller's is 404 whatever the body`, async (t) => {
    const res = await h.app.inject({ method: 'POST', url: d.base(b), headers: d.auth(a), payload: { name: '' } });
    t.equal(res.statusCode, 404);
    const list = await h.app.inject({ method: 'GET', url: `${d.base(b)}/dead-letters`, headers: d.auth(a) });
    t.equal(list.statusCode, 404);
  });

  t.test(`${d.name}: dead letters with limit`, async (t) => {
    const res = await h.app.inject({ method: 'GET', url: `${d.base(a)}/dead-letters?limit=5`, headers: d.auth(a) });
    t.equal(res.statusCode, 200);
    t.same(res.json(), []);
    for (const q of ['limit=0', 'limit=201', 'limit=x', 'offset=1']) {
      const bad = await h.app.inject({ method: 'GET', url: `${d.base(a)}/dead-letters?${q}`, headers: d.auth(a) });
      t.equal(bad.statusCode, 422, q);
    }
  });

  t.test(`${d.name}: 503 when the keyring cannot seal the secret`, async (t) => {
    const original = h.ctx.keyring.encrypt;
    h.ctx.keyring.encrypt = () => {
      throw new KeyringError('keyring unavailable');
    };
    t.teardown(() => {
      h.ctx.keyring.encrypt = original;
    });
    const res = await create(d, a, { name: 'x', url: 'http://127.0.0.1:9/x' });
    t.equal(res.statusCode, 503);
    t.same(res.json(), { detail: 'webhook secret storage unavailable' });
  });
}

t.test('machine door: missing key, bad key, scopes', async (t) => {
  const url = `/v2/projects/${a.projectId}/webhooks`;
  const none = await h.app.inject({ method: 'GET', url });
  t.equal(none.statusCode, 401);
  t.same(none.json(), { detail: 'missing API key' });
  const readOnly = await createTenant(h, ['webhook:read']);
  const roUrl = `/v2/projects/${readOnly.projectId}/webhooks`;
  t.equal((await h.app.inject({ method: 'GET', url: roUrl, headers: readOnly.machine })).statusCode, 200);
  t.equal((await h.app.inject({ method: 'GET', url: `${roUrl}/dead-letters`, headers: readOnly.machine })).statusCode, 200);
  for (const [method, path] of [['POST', ''], ['DELETE', '/00000000-0000-4000-8000-000000000000'], ['POST', '/00000000-0000-4000-8000-000000000000/test']] as const) {
    const res = await h.app.inject({ method, url: `${roUrl}${path}`, headers: readOnly.machine, payload: method === 'POST' && !path ? { name: 'x', url: 'http://127.0.0.1:9/x' } : undefined });
    t.equal(res.statusCode, 403, `${method} ${path}`);
    t.match(res.json().detail, /webhook:write/);
  }
  const voiceOnly = await createTenant(h, ['voice:read', 'voice:write']);
  const vo = await h.app.inject({ method: 'GET', url: `/v2/projects/${voiceOnly.projectId}/webhooks`, headers: voiceOnly.machine });
  t.equal(vo.statusCode, 403);
  t.match(vo.json().detail, /webhook:read/);
});

t.test('console door: no session is 401', async (t) => {
  const res = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${a.projectId}/webhooks` });
  t.equal(res.statusCode, 401);
});

t.test('routes are documented', async (t) => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  t.ok(doc.paths['/v2/projects/{project_id}/webhooks'].post);
  t.ok(doc.paths['/console/v2/projects/{project_id}/webhooks/{endpoint_id}/test'].post);
  t.ok(doc.paths['/v2/projects/{project_id}/webhooks/dead-letters'].get);
});
