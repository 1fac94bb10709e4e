import t from 'tap';
import { createTenant } from '../helpers/fixtures.js';
import { startFakeTwilio } from '../fakes/twilio/rest.js';
import { closedPort, projectRevision, startHarnessWithLogs } from './helpers.js';
import { openCarrierClient, verifyCarrier } from '../../src/carriers/accounts.js';

const h = await startHarnessWithLogs();
const fake = await startFakeTwilio();
t.teardown(async () => {
  await fake.close();
  await h.close();
});
const a = await createTenant(h);
const b = await createTenant(h);
const base = `/console/v2/projects/${a.projectId}/carriers`;
const twilio = fake.addAccount();
const credentials = { account_sid: twilio.sid, auth_token: twilio.token };
const secrets = [twilio.token];

const create = (payload: unknown, headers = a.bearer, url = base) => h.app.inject({ method: 'POST', url, headers, payload: payload as object });
const body = (over: Record<string, unknown> = {}) => ({ kind: 'twilio', label: 'Main line', credentials, base_url: fake.baseUrl, ...over });

const KEYS = ['account_sid', 'base_url', 'created_at', 'id', 'kind', 'label', 'project_id', 'revision', 'status', 'status_detail', 'token_hint', 'updated_at'];

t.test('create: 201 with the carrier, never the token; sealed at rest under the carrier id', async (t) => {
  const before = await projectRevision(h, a.projectId);
  const res = await create(body());
  t.equal(res.statusCode, 201);
  const c = res.json();
  t.same(Object.keys(c).sort(), KEYS);
  t.match(c, { kind: 'twilio', label: 'Main line', status: 'unverified', status_detail: null, base_url: fake.baseUrl, account_sid: twilio.sid, revision: 1, project_id: a.projectId });
  t.equal(c.token_hint, twilio.token.slice(-4));
  t.notMatch(res.body, twilio.token);
  t.equal(await projectRevision(h, a.projectId), before + 1, 'project revision bumped');

  const [row] = await h.ctx.sql`select credentials_sealed from carriers where id = ${c.id}`;
  t.notMatch(row.credentials_sealed, twilio.token);
  t.same(JSON.parse(h.ctx.keyring.decrypt(row.credentials_sealed, c.id)), credentials);
  t.throws(() => h.ctx.keyring.decrypt(row.credentials_sealed, a.projectId), 'another AAD does not open it');

  const noBase = await create(body({ base_url: undefined, label: 'Default host' }));
  t.equal(noBase.statusCode, 201);
  t.equal(noBase.json().base_url, null);
});

t.test('create: 422 with exact locations', async (t) => {
  const cases: [Record<string, unknown>, (string | number)[], string][] = [
    [body({ kind: 'vonage' }), ['body', 'kind'], 'invalid_union'],
    [body({ label: '' }), ['body', 'label'], 'too_small'],
    [body({ credentials: undefined }), ['body', 'credentials'], 'missing'],
    [body({ credentials: { account_sid: 'AC123', auth_token: twilio.token } }), ['body', 'credentials', 'account_sid'], 'invalid_format'],
    [body({ credentials: { account_sid: `AC${'g'.repeat(32)}`, auth_token: twilio.token } }), ['body', 'credentials', 'account_sid'], 'invalid_format'],
    [body({ credentials: { account_sid: twilio.sid, auth_token: 'short' } }), ['body', 'credentials', 'auth_token'], 'invalid_format'],
    [body({ credentials: { account_sid: twilio.sid, auth_token: `${twilio.token}\n` } }), ['body', 'credentials', 'auth_token'], 'invalid_format'],
    [body({ credentials: { ...credentials, api_key: 'x' } }), ['body', 'credentials', 'api_key'], 'extra_forbidden'],
    [body({ status: 'verified' }), ['body', 'status'], 'extra_forbidden'],
    [body({ base_url: 'ftp://twilio.example.com' }), ['body', 'base_url'], 'value_error'],
  ];
  for (const [payload, loc, type] of cases) {
    const res = await create(payload);
    t.equal(res.statusCode, 422, JSON.stringify(loc));
    t.same(res.json().detail[0].loc, loc);
    t.equal(res.json().detail[0].type, type, JSON.stringify(loc));
    t.notMatch(res.body, twilio.token, 'the token is not echoed in a 422');
  }
  t.equal((await create(body({ base_url: 'ftp://twilio.example.com' }))).json().detail[0].msg, 'base_url must use https');
});

t.test('base_url must be public https unless ALLOW_PRIVATE_URLS', async (t) => {
  h.ctx.config.ALLOW_PRIVATE_URLS = false;
  t.teardown(() => {
    h.ctx.config.ALLOW_PRIVATE_URLS = true;
  });
  for (const [url, msg] of [
    ['http://api.twilio.example.com', 'base_url must use https'],
    ['https://127.0.0.1:8443', 'base_url must not point at a private, loopback or link-local address'],
    ['https://10.1.2.3', 'base_url must not point at a private, loopback or link-local address'],
    ['https://localhost', 'base_url must not point at a private, loopback or link-local address'],
  ]) {
    const res = await create(body({ base_url: url }));
    t.equal(res.statusCode, 422, url);
    t.same(res.json().detail, [{ loc: ['body', 'base_url'], msg, type: 'value_error' }]);
  }
  t.equal((await create(body({ base_url: 'https://api.twilio.com' }))).statusCode, 201);
});

t.test('list and get; another owner, a machine key or no session cannot see them', async (t) => {
  const list = await h.app.inject({ method: 'GET', url: base, headers: a.bearer });
  t.equal(list.statusCode, 200);
  const carriers = list.json();
  t.ok(carriers.length >= 2);
  t.notMatch(list.body, twilio.token);
  t.ok(carriers[0].created_at >= carriers[1].created_at, 'newest first');
  t.equal((await h.app.inject({ method: 'GET', url: `${base}?limit=1`, headers: a.bearer })).json().length, 1);
  t.equal((await h.app.inject({ method: 'GET', url: `${base}?limit=201`, headers: a.bearer })).statusCode, 422);

  const id = carriers[0].id;
  const one = await h.app.inject({ method: 'GET', url: `${base}/${id}`, headers: a.bearer });
  t.equal(one.statusCode, 200);
  t.same(one.json(), carriers[0]);

  for (const [method, url] of [['GET', base], ['GET', `${base}/${id}`], ['PATCH', `${base}/${id}`], ['DELETE', `${base}/${id}`], ['POST', `${base}/${id}/verify`], ['POST', base]] as const) {
    const other = await h.app.inject({ method, url, headers: b.bearer, payload: method === 'POST' || method === 'PATCH' ? { label: 'x' } : undefined });
    t.equal(other.statusCode, 404, `${method} ${url} by another owner`);
    t.same(other.json(), { detail: 'project not found' });
  }
  const viaOwnProject = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${b.projectId}/carriers/${id}`, headers: b.bearer });
  t.equal(viaOwnProject.statusCode, 404, "another project's carrier through one's own project");
  t.same(viaOwnProject.json(), { detail: 'carrier not found' });
  t.equal((await h.app.inject({ method: 'GET', url: base, headers: a.machine })).statusCode, 401, 'console door only');
  t.equal((await h.app.inject({ method: 'GET', url: `/v2/carriers` , headers: a.machine })).statusCode, 404, 'no machine-door route');
  t.equal((await h.app.inject({ method: 'GET', url: base })).statusCode, 401);
  const missing = await h.app.inject({ method: 'GET', url: `${base}/00000000-0000-4000-8000-000000000000`, headers: a.bearer });
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { detail: 'carrier not found' });
  const malformed = await h.app.inject({ method: 'GET', url: `${base}/not-a-uuid`, headers: a.bearer });
  t.equal(malformed.statusCode, 422);
  t.same(malformed.json().detail[0].loc, ['path', 'carrier_id']);
});

t.test('verify against the fake: verified, invalid with a detail, carrier down, timeout', async (t) => {
  const id = (await create(body({ label: 'to verify' }))).json().id;
  const verified = await h.app.inject({ method: 'POST', url: `${base}/${id}/verify`, headers: a.bearer });
  t.equal(verified.statusCode, 200);
  t.match(verified.json(), { id, status: 'verified', status_detail: null });
  t.equal(fake.requests.at(-1)!.path, `/2010-04-01/Accounts/${twilio.sid}.json`);

  const wrong = (await create(body({ label: 'wrong token', credentials: { account_sid: twilio.sid, auth_token: 'f'.repeat(32) } }))).json().id;
  const invalid = await h.app.inject({ method: 'POST', url: `${base}/${wrong}/verify`, headers: a.bearer });
  t.equal(invalid.statusCode, 200);
  t.match(invalid.json(), { status: 'invalid', status_detail: 'Twilio rejected the Account SID or Auth Token (HTTP 401, code 20003)' });

  fake.setAccountStatus(twilio.sid, 'suspended');
  const suspended = await h.app.inject({ method: 'POST', url: `${base}/${id}/verify`, headers: a.bearer });
  t.match(suspended.json(), { status: 'invalid', status_detail: 'the Twilio account is suspended' });
  fake.setAccountStatus(twilio.sid, 'active');

  const port = await closedPort();
  const down = (await create(body({ label: 'down', base_url: `http://127.0.0.1:${port}` }))).json().id;
  const res = await h.app.inject({ method: 'POST', url: `${base}/${down}/verify`, headers: a.bearer });
  t.equal(res.statusCode, 200);
  t.match(res.json(), { status: 'invalid', status_detail: `could not connect to 127.0.0.1:${port}: connection refused` });

  fake.override({ hang: true });
  const slow = await verifyCarrier(h.ctx, a.projectId, id, { timeoutMs: 300 });
  t.match(slow, { status: 'invalid', status_detail: `${new URL(fake.baseUrl).host} did not answer within 0.3 s` });
  t.match((await h.app.inject({ method: 'POST', url: `${base}/${id}/verify`, headers: a.bearer })).json(), { status: 'verified' }, 'verifies again once Twilio answers');
});

t.test('a verification result for old credentials is not stored over new ones', async (t) => {
  const id = (await create(body({ label: 'race' }))).json().id;
  // Change the credentials between reading the carrier and recording the result.
  const { recordCarrierVerification, getCarrier } = await import('../../src/db/repos/carriers.js');
  const before = await getCarrier(h.ctx.sql, a.projectId, id);
  await h.app.inject({ method: 'PATCH', url: `${base}/${id}`, headers: a.bearer, payload: { credentials: { account_sid: twilio.sid, auth_token: 'e'.repeat(32) } } });
  const after = await recordCarrierVerification(h.ctx, a.projectId, id, before.revision, { status: 'verified', detail: null });
  t.equal(after.status, 'unverified');
});

t.test('patch: label keeps the status; new credentials or base_url need verifying again', async (t) => {
  const c = (await create(body({ label: 'patch me' }))).json();
  await h.app.inject({ method: 'POST', url: `${base}/${c.id}/verify`, headers: a.bearer });
  let rev = await projectRevision(h, a.projectId);

  const label = await h.app.inject({ method: 'PATCH', url: `${base}/${c.id}`, headers: a.bearer, payload: { label: 'renamed' } });
  t.equal(label.statusCode, 200);
  t.match(label.json(), { label: 'renamed', status: 'verified', revision: 2 });
  t.equal(await projectRevision(h, a.projectId), ++rev);

  const sameUrl = await h.app.inject({ method: 'PATCH', url: `${base}/${c.id}`, headers: a.bearer, payload: { base_url: fake.baseUrl } });
  t.match(sameUrl.json(), { status: 'verified', revision: 3 }, 'the same base_url is no change of target');

  const other = fake.addAccount();
  const creds = await h.app.inject({ method: 'PATCH', url: `${base}/${c.id}`, headers: a.bearer, payload: { credentials: { account_sid: other.sid, auth_token: other.token } } });
  t.equal(creds.statusCode, 200);
  t.match(creds.json(), { status: 'unverified', status_detail: null, account_sid: other.sid, token_hint: other.token.slice(-4), revision: 4 });
  t.notMatch(creds.body, other.token);
  t.match((await h.app.inject({ method: 'POST', url: `${base}/${c.id}/verify`, headers: a.bearer })).json(), { status: 'verified' });
  t.equal(fake.requests.at(-1)!.path, `/2010-04-01/Accounts/${other.sid}.json`, 'verification uses the new credentials');

  const moved = await h.app.inject({ method: 'PATCH', url: `${base}/${c.id}`, headers: a.bearer, payload: { base_url: null } });
  t.match(moved.json(), { status: 'unverified', base_url: null, revision: 5 });

  const empty = await h.app.inject({ method: 'PATCH', url: `${base}/${c.id}`, headers: a.bearer, payload: {} });
  t.equal(empty.statusCode, 422);
  t.same(empty.json().detail, [{ loc: ['body'], msg: 'send at least one of label, credentials, base_url', type: 'value_error' }]);
  const kind = await h.app.inject({ method: 'PATCH', url: `${base}/${c.id}`, headers: a.bearer, payload: { kind: 'twilio' } });
  t.same(kind.json().detail[0].loc, ['body', 'kind'], 'kind cannot change');
  secrets.push(other.token);
});

t.test('delete: soft, drops the sealed credentials, bumps the revision; then 404', async (t) => {
  const c = (await create(body({ label: 'delete me' }))).json();
  const rev = await projectRevision(h, a.projectId);
  const del = await h.app.inject({ method: 'DELETE', url: `${base}/${c.id}`, headers: a.bearer });
  t.equal(del.statusCode, 200);
  t.equal(del.json().id, c.id);
  t.equal(await projectRevision(h, a.projectId), rev + 1);
  const [row] = await h.ctx.sql`select credentials_sealed, deleted_at from carriers where id = ${c.id}`;
  t.equal(row.credentials_sealed, null);
  t.ok(row.deleted_at);
  t.equal((await h.app.inject({ method: 'GET', url: `${base}/${c.id}`, headers: a.bearer })).statusCode, 404);
  t.equal((await h.app.inject({ method: 'DELETE', url: `${base}/${c.id}`, headers: a.bearer })).statusCode, 404);
  t.equal((await h.app.inject({ method: 'POST', url: `${base}/${c.id}/verify`, headers: a.bearer })).statusCode, 404);
  const listed = (await h.app.inject({ method: 'GET', url: `${base}?limit=200`, headers: a.bearer })).json();
  t.notOk(listed.some((x: { id: string }) => x.id === c.id));
});

t.test('openCarrierClient places calls with the stored credentials; a deleted carrier is unavailable', async (t) => {
  const c = (await create(body({ label: 'dialer' }))).json();
  const client = await openCarrierClient(h.ctx, c);
  const call = await client.createCall({ from: '+14155550100', to: '+14155550199', twiml: '<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>' });
  t.equal(fake.calls.at(-1)!.sid, call.sid);
  t.equal(fake.calls.at(-1)!.accountSid, twilio.sid);
  await h.app.inject({ method: 'DELETE', url: `${base}/${c.id}`, headers: a.bearer });
  const err = await openCarrierClient(h.ctx, c).then(() => null, (e: unknown) => e as { status: number; detail: string });
  t.match(err, { status: 503, detail: 'carrier connection unavailable' });
});

t.test('no auth token ever reached a log line', async (t) => {
  const text = h.logs.text();
  t.ok(h.logs.lines.length > 10, 'the app did log');
  t.match(text, 'carrier verified');
  for (const s of secrets) t.notMatch(text, s);
});
