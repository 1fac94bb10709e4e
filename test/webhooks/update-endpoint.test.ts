import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';

// PATCH .../webhooks/{endpoint_id} on both doors: edit in place, disable and enable again, what
// happens to open deliveries, the create rules (URL safety included) and the errors. No worker
// runs here, so a test ping stays pending and shows where its retries would go.

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);

type Door = { name: string; base: (x: Tenant) => string; auth: (x: Tenant) => Record<string, string> };
const doors: Door[] = [
  { name: 'machine', base: (x) => `/v2/projects/${x.projectId}/webhooks`, auth: (x) => x.machine },
  { name: 'console', base: (x) => `/console/v2/projects/${x.projectId}/webhooks`, auth: (x) => x.bearer },
];

const create = async (d: Door, x: Tenant, payload: object) => {
  const res = await h.app.inject({ method: 'POST', url: d.base(x), headers: d.auth(x), payload });
  if (res.statusCode !== 201) throw new Error(`create: ${res.statusCode} ${res.body}`);
  return res.json();
};
const patch = (d: Door, x: Tenant, id: string, payload: unknown) =>
  h.app.inject({ method: 'PATCH', url: `${d.base(x)}/${id}`, headers: d.auth(x), payload: payload as object });
const ping = (d: Door, x: Tenant, id: string) => h.app.inject({ method: 'POST', url: `${d.base(x)}/${id}/test`, headers: d.auth(x) });
const delivery = async (id: string) =>
  (await h.ctx.sql`select status, url, endpoint_revision from webhook_deliveries where id = ${id}`)[0] as { status: string; url: string; endpoint_revision: number };

for (const d of doors) {
  t.test(`${d.name}: only the sent fields change, the revision goes up, the secret stays`, async (t) => {
    const ep = await create(d, a, { name: 'orders', url: 'http://127.0.0.1:9/old', event_types: ['call.completed'] });
    const sealed = (await h.ctx.sql`select secret_sealed from webhook_endpoints where id = ${ep.id}`)[0].secret_sealed;

    const renamed = await patch(d, a, ep.id, { name: '  billing  ' });
    t.equal(renamed.statusCode, 200);
    t.same(
      { name: renamed.json().name, url: renamed.json().url, event_types: renamed.json().event_types, status: renamed.json().status, revision: renamed.json().revision },
      { name: 'billing', url: 'http://127.0.0.1:9/old', event_types: ['call.completed'], status: 'active', revision: 2 },
    );
    t.notOk('signing_secret' in renamed.json());

    const moved = (await patch(d, a, ep.id, { url: 'http://127.0.0.1:9/new', event_types: ['call.failed', 'call.failed', 'webhook.ping'] })).json();
    t.same([moved.name, moved.url, moved.event_types, moved.revision], ['billing', 'http://127.0.0.1:9/new', ['call.failed', 'webhook.ping'], 3]);
    t.equal(moved.secret_hint, ep.secret_hint);
    t.equal(moved.id, ep.id);
    t.equal(moved.created_at, ep.created_at);

    const all = (await patch(d, a, ep.id, { event_types: [] })).json();
    t.same([all.event_types, all.revision], [[], 4], 'an empty list subscribes to every event, as on create');

    const stored = (await h.ctx.sql`select secret_sealed from webhook_endpoints where id = ${ep.id}`)[0].secret_sealed;
    t.equal(stored, sealed, 'the signing secret is not replaced');
    const listed = (await h.app.inject({ method: 'GET', url: d.base(a), headers: d.auth(a) })).json();
    t.same(listed.find((e: { id: string }) => e.id === ep.id), all, 'the list shows the change');
  });

  t.test(`${d.name}: sending what is there (or nothing) changes nothing`, async (t) => {
    const ep = await create(d, a, { name: 'same', url: 'http://127.0.0.1:9/same', event_types: ['call.failed', 'call.completed'] });
    const same = await patch(d, a, ep.id, { name: 'same', url: 'http://127.0.0.1:9/same', event_types: ['call.completed', 'call.failed'], status: 'active' });
    t.equal(same.statusCode, 200);
    const { signing_secret: _secret, ...info } = ep;
    t.same(same.json(), info, 'revision and updated_at unchanged');
    const empty = await patch(d, a, ep.id, {});
    t.equal(empty.statusCode, 200);
    t.equal(empty.json().revision, 1);
  });

  t.test(`${d.name}: disable cancels open deliveries; enable again revives none and pings work`, async (t) => {
    const ep = await create(d, a, { name: 'toggle', url: 'http://127.0.0.1:9/toggle' });
    const queued = (await ping(d, a, ep.id)).json();
    t.equal((await delivery(queued.delivery_id)).status, 'pending');

    const off = await patch(d, a, ep.id, { status: 'disabled' });
    t.equal(off.statusCode, 200);
    t.same([off.json().status, off.json().revision], ['disabled', 2]);
    t.equal((await delivery(queued.delivery_id)).status, 'cancelled', 'as DELETE does');
    t.equal((await ping(d, a, ep.id)).statusCode, 409, 'a disabled endpoint takes no ping');
    const active = (await h.app.inject({ method: 'GET', url: d.base(a), headers: d.auth(a) })).json();
    t.notOk(active.some((e: { id: string }) => e.id === ep.id));

    // Editing a disabled endpoint is allowed; it stays disabled.
    const edited = (await patch(d, a, ep.id, { url: 'http://127.0.0.1:9/fixed' })).json();
    t.same([edited.status, edited.url, edited.revision], ['disabled', 'http://127.0.0.1:9/fixed', 3]);

    const on = await patch(d, a, ep.id, { status: 'active' });
    t.equal(on.statusCode, 200);
    t.same([on.json().status, on.json().revision], ['active', 4]);
    t.equal((await delivery(queued.delivery_id)).status, 'cancelled', 'what was cancelled stays cancelled');
    const again = await ping(d, a, ep.id);
    t.equal(again.statusCode, 202);
    t.equal(again.json().queued, true);
    t.same(await delivery(again.json().delivery_id), { status: 'pending', url: 'http://127.0.0.1:9/fixed', endpoint_revision: 4 });
  });

  t.test(`${d.name}: on an active endpoint, open deliveries follow the new URL and revision`, async (t) => {
    const ep = await create(d, a, { name: 'retarget', url: 'http://127.0.0.1:9/typo' });
    const queued = (await ping(d, a, ep.id)).json();
    t.same(await delivery(queued.delivery_id), { status: 'pending', url: 'http://127.0.0.1:9/typo', endpoint_revision: 1 });
    const fixed = (await patch(d, a, ep.id, { url: 'http://127.0.0.1:9/right' })).json();
    t.equal(fixed.revision, 2);
    t.same(await delivery(queued.delivery_id), { status: 'pending', url: 'http://127.0.0.1:9/right', endpoint_revision: 2 });
    // A new revision: a ping in the same minute is not deduplicated against the old URL.
    const next = (await ping(d, a, ep.id)).json();
    t.equal(next.queued, true);
    t.not(next.delivery_id, queued.delivery_id);
  });

  t.test(`${d.name}: bad input is 422 with loc, as on create`, async (t) => {
    const ep = await create(d, a, { name: 'valid', url: 'http://127.0.0.1:9/valid' });
    const cases: [unknown, (string | number)[]][] = [
      [{ name: '' }, ['body', 'name']],
      [{ name: '   ' }, ['body', 'name']],
      [{ name: 'n'.repeat(121) }, ['body', 'name']],
      [{ name: null }, ['body', 'name']],
      [{ url: 'not a url at all' }, ['body', 'url']],
      [{ url: 'ftp://example.com/x' }, ['body', 'url']],
      [{ url: 'https://user:pw@example.com/x' }, ['body', 'url']],
      [{ url: `http://127.0.0.1/${'a'.repeat(2048)}` }, ['body', 'url']],
      [{ event_types: ['call.started'] }, ['body', 'event_types', 0]],
      [{ event_types: Array(51).fill('call.failed') }, ['body', 'event_types']],
      [{ event_types: 'call.failed' }, ['body', 'event_types']],
      [{ status: 'paused' }, ['body', 'status']],
      [{ enabled: true }, ['body', 'enabled']],
      [{ signing_secret: 'whsec_mine' }, ['body', 'signing_secret']],
    ];
    for (const [payload, loc] of cases) {
      const res = await patch(d, a, ep.id, payload);
      t.equal(res.statusCode, 422, JSON.stringify(payload).slice(0, 80));
      t.same(res.json().detail[0].loc, loc, JSON.stringify(payload).slice(0, 80));
    }
    const bad = await patch(d, a, 'nope', { name: 'x' });
    t.equal(bad.statusCode, 422);
    t.same(bad.json().detail[0].loc, ['path', 'endpoint_id']);
    const unchanged = (await h.ctx.sql`select name, url, revision from webhook_endpoints where id = ${ep.id}`)[0];
    t.same({ ...unchanged }, { name: 'valid', url: 'http://127.0.0.1:9/valid', revision: 1 }, 'nothing was written');
  });

  t.test(`${d.name}: another project's endpoint is 404 and stays as it was`, async (t) => {
    const other = await create(d, b, { name: 'theirs', url: 'http://127.0.0.1:9/theirs' });
    const res = await patch(d, a, other.id, { status: 'disabled', url: 'http://127.0.0.1:9/mine' });
    t.equal(res.statusCode, 404);
    t.same(res.json(), { detail: 'webhook endpoint not found' });
    const missing = await patch(d, a, '00000000-0000-4000-8000-000000000000', { name: 'x' });
    t.equal(missing.statusCode, 404);
    const theirs = (await h.ctx.sql`select status, url, revision from webhook_endpoints where id = ${other.id}`)[0];
    t.same({ ...theirs }, { status: 'active', url: 'http://127.0.0.1:9/theirs', revision: 1 });
    // Through the other project's path: the project itself is not the caller's.
    const foreign = await h.app.inject({ method: 'PATCH', url: `${d.base(b)}/${other.id}`, headers: d.auth(a), payload: { name: 'x' } });
    t.equal(foreign.statusCode, 404);
  });
}

t.test('machine door: webhook:write is needed', async (t) => {
  const owner = await createTenant(h);
  const ep = await create(doors[0], owner, { name: 'ro', url: 'http://127.0.0.1:9/ro' });
  const readOnly = await createTenant(h, ['webhook:read']);
  const res = await h.app.inject({ method: 'PATCH', url: `/v2/projects/${readOnly.projectId}/webhooks/${ep.id}`, headers: readOnly.machine, payload: { name: 'x' } });
  t.equal(res.statusCode, 403);
  t.match(res.json().detail, /webhook:write/);
  const none = await h.app.inject({ method: 'PATCH', url: `/v2/projects/${owner.projectId}/webhooks/${ep.id}`, payload: { name: 'x' } });
  t.equal(none.statusCode, 401);
  const noSession = await h.app.inject({ method: 'PATCH', url: `/console/v2/projects/${owner.projectId}/webhooks/${ep.id}`, payload: { name: 'x' } });
  t.equal(noSession.statusCode, 401);
});

t.test('documented on both doors with the named request schema', async (t) => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const machine = doc.paths['/v2/projects/{project_id}/webhooks/{endpoint_id}'].patch;
  const console = doc.paths['/console/v2/projects/{project_id}/webhooks/{endpoint_id}'].patch;
  t.equal(machine.operationId, 'updateWebhookEndpoint');
  t.equal(console.operationId, 'consoleUpdateWebhookEndpoint');
  for (const op of [machine, console]) {
    t.equal(op.requestBody.content['application/json'].schema.$ref, '#/components/schemas/UpdateWebhookEndpointRequest');
    t.ok(op.responses['200'] && op.responses['404'] && op.responses['422']);
  }
  t.same(Object.keys(doc.components.schemas.UpdateWebhookEndpointRequest.properties).sort(), ['event_types', 'name', 'status', 'url']);
});

t.test('without ALLOW_PRIVATE_URLS the URL safety rules of create apply', async (t) => {
  const strict = await startHarness({ env: { ALLOW_PRIVATE_URLS: '0' } });
  t.teardown(strict.close);
  const x = await createTenant(strict);
  const base = `/v2/projects/${x.projectId}/webhooks`;
  const made = await strict.app.inject({ method: 'POST', url: base, headers: x.machine, payload: { name: 'public', url: 'https://hooks.example.com/x' } });
  t.equal(made.statusCode, 201);
  const id = made.json().id;
  const refused: [string, RegExp][] = [
    ['http://hooks.example.com/x', /https/],
    ['https://127.0.0.1/x', /public address/],
    ['https://169.254.169.254/latest/meta-data', /public address/],
    ['https://[::ffff:127.0.0.1]/x', /public address/],
    ['https://localhost/x', /public host/],
    ['https://metadata.google.internal/x', /public host/],
  ];
  for (const [url, msg] of refused) {
    const res = await strict.app.inject({ method: 'PATCH', url: `${base}/${id}`, headers: x.machine, payload: { url } });
    t.equal(res.statusCode, 422, url);
    t.same(res.json().detail[0].loc, ['body', 'url']);
    t.match(res.json().detail[0].msg, msg, url);
  }
  const ok = await strict.app.inject({ method: 'PATCH', url: `${base}/${id}`, headers: x.machine, payload: { url: 'https://hooks.example.com:8443/y' } });
  t.equal(ok.statusCode, 200);
  t.equal(ok.json().url, 'https://hooks.example.com:8443/y');
});
