import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { findPublishableKey } from '../../src/db/repos/publishable-keys.js';

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);
const base = `/console/v2/projects/${a.projectId}/publishable-keys`;

t.test('create (key shown once), list, rotate, revoke', async (t) => {
  const created = await h.app.inject({ method: 'POST', url: base, headers: a.bearer, payload: { name: 'site', origins: ['https://app.example.com', 'http://localhost:3000'] } });
  t.equal(created.statusCode, 201);
  const k = created.json();
  t.match(k.key, /^pk_[0-9A-Za-z]{43}$/);
  t.equal(k.agent_ids, null);
  t.ok(await findPublishableKey(h.ctx, k.key));
  const list = await h.app.inject({ method: 'GET', url: base, headers: a.bearer });
  t.notMatch(list.body, k.key);
  t.equal(list.json().length, 1);
  const rotated = await h.app.inject({ method: 'POST', url: `${base}/${k.id}/rotate`, headers: a.bearer });
  t.equal(rotated.statusCode, 200);
  t.not(rotated.json().key, k.key);
  t.notOk(await findPublishableKey(h.ctx, k.key), 'the old key stops working');
  t.ok(await findPublishableKey(h.ctx, rotated.json().key));
  const revoked = await h.app.inject({ method: 'DELETE', url: `${base}/${k.id}`, headers: a.bearer });
  t.equal(revoked.statusCode, 200);
  t.notOk(await findPublishableKey(h.ctx, rotated.json().key));
  const again = await h.app.inject({ method: 'POST', url: `${base}/${k.id}/rotate`, headers: a.bearer });
  t.equal(again.statusCode, 404);
});

t.test('origins must be exact origins; another owner gets 404; machine keys cannot mint', async (t) => {
  for (const origin of ['https://app.example.com/', 'https://app.example.com/path', 'ftp://x.example.com', '*', 'app.example.com']) {
    const res = await h.app.inject({ method: 'POST', url: base, headers: a.bearer, payload: { name: 'x', origins: [origin] } });
    t.equal(res.statusCode, 422, origin);
    t.same(res.json().detail[0].loc, ['body', 'origins', 0]);
  }
  const other = await h.app.inject({ method: 'POST', url: base, headers: b.bearer, payload: { name: 'x', origins: ['https://a.example.com'] } });
  t.equal(other.statusCode, 404);
  const machine = await h.app.inject({ method: 'POST', url: base, headers: a.machine, payload: { name: 'x', origins: ['https://a.example.com'] } });
  t.equal(machine.statusCode, 401);
});
