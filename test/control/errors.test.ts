import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);

t.test('unknown route is 404 with detail and a request id', async (t) => {
  const res = await h.app.inject({ method: 'GET', url: '/nope' });
  t.equal(res.statusCode, 404);
  t.same(res.json(), { detail: 'route not found' });
  t.match(res.headers['x-request-id'], /^[0-9a-f-]{36}$/);
});

t.test('malformed JSON is 422 at loc body', async (t) => {
  const res = await h.app.inject({
    method: 'POST',
    url: '/console/v2/projects',
    headers: { ...tenant.bearer, 'content-type': 'application/json' },
    payload: '{"name": ',
  });
  t.equal(res.statusCode, 422);
  t.same(res.json(), { detail: [{ loc: ['body'], msg: 'malformed JSON', type: 'json_invalid' }] });
});

t.test('unknown body field is 422 naming the field', async (t) => {
  const res = await h.app.inject({ method: 'POST', url: '/console/v2/projects', headers: tenant.bearer, payload: { name: 'x', colour: 'red' } });
  t.equal(res.statusCode, 422);
  t.same(res.json().detail, [{ loc: ['body', 'colour'], msg: 'unknown field', type: 'extra_forbidden' }]);
});

t.test('missing field is 422 with type missing', async (t) => {
  const res = await h.app.inject({ method: 'POST', url: '/console/v2/projects', headers: tenant.bearer, payload: {} });
  t.equal(res.statusCode, 422);
  t.same(res.json().detail, [{ loc: ['body', 'name'], msg: 'field required', type: 'missing' }]);
});

t.test('a body over 1 MiB is 413', async (t) => {
  const res = await h.app.inject({
    method: 'POST',
    url: '/console/v2/projects',
    headers: { ...tenant.bearer, 'content-type': 'application/json' },
    payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
  });
  t.equal(res.statusCode, 413);
  t.match(res.json().detail, /too large/);
});

t.test('a non-JSON content type is 415 with detail', async (t) => {
  const res = await h.app.inject({
    method: 'POST',
    url: '/console/v2/projects',
    headers: { ...tenant.bearer, 'content-type': 'text/xml' },
    payload: '<name/>',
  });
  t.equal(res.statusCode, 415);
  t.type(res.json().detail, 'string');
});

t.test('bad query and path values are 422 with their loc', async (t) => {
  const q = await h.app.inject({ method: 'GET', url: '/console/v2/projects?limit=201', headers: tenant.bearer });
  t.equal(q.statusCode, 422);
  t.same(q.json().detail[0].loc, ['query', 'limit']);
  const p = await h.app.inject({ method: 'GET', url: '/console/v2/projects/not-a-uuid', headers: tenant.bearer });
  t.equal(p.statusCode, 422);
  t.same(p.json().detail[0].loc, ['path', 'project_id']);
});

t.test('openapi document lists the routes and /docs serves the reference page', async (t) => {
  const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
  t.equal(res.statusCode, 200);
  const doc = res.json();
  t.equal(doc.openapi, '3.1.0');
  t.ok(doc.paths['/console/auth/login'].post.requestBody);
  t.ok(doc.paths['/console/v2/projects/{project_id}'].get);
  const page = await h.app.inject({ method: 'GET', url: '/docs' });
  t.equal(page.statusCode, 200);
  t.match(page.body, /swagger-ui-bundle\.js/);
  const asset = await h.app.inject({ method: 'GET', url: '/docs/swagger-ui-bundle.js' });
  t.equal(asset.statusCode, 200);
});

t.test('a missing enum field is reported as missing, a wrong one as invalid', async (t) => {
  const missing = await h.app.inject({ method: 'POST', url: '/v2/agents', headers: tenant.machine, payload: { name: 'a', prompt: 'p', pipeline_config: {} } });
  t.equal(missing.statusCode, 422);
  t.same(missing.json().detail.find((d: { loc: string[] }) => d.loc[1] === 'pipeline_mode'), { loc: ['body', 'pipeline_mode'], msg: 'field required', type: 'missing' });
  const wrong = await h.app.inject({ method: 'POST', url: '/v2/agents', headers: tenant.machine, payload: { name: 'a', prompt: 'p', pipeline_config: {}, pipeline_mode: 'psychic' } });
  t.equal(wrong.json().detail.find((d: { loc: string[] }) => d.loc[1] === 'pipeline_mode').type, 'invalid_value');
});

t.test('text Postgres cannot store is a 422, not a 500', async (t) => {
  const res = await h.app.inject({ method: 'POST', url: '/console/v2/projects', headers: tenant.bearer, payload: { name: 'nul \u0000 byte' } });
  t.equal(res.statusCode, 422);
});
