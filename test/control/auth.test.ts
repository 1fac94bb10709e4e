import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { PASSWORD, createTenant } from '../helpers/fixtures.js';
import { setAccountFlag } from '../../src/db/repos/accounts.js';

const h = await startHarness();
t.teardown(h.close);

const post = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  h.app.inject({ method: 'POST', url, payload: payload as object, headers });
const tokenFromMail = () => /verify-email\?token=(\S+)/.exec(h.mailer.sent.at(-1)!.text)![1];

t.test('signup, verify, login, use, refresh, logout', async (t) => {
  const signup = await post('/console/auth/signup', { email: 'Ada@Example.com', password: PASSWORD });
  t.equal(signup.statusCode, 201);
  t.same(Object.keys(signup.json()).sort(), ['email', 'email_verified', 'id']);
  t.equal(signup.json().email_verified, false);
  t.notMatch(signup.body, PASSWORD);

  const dup = await post('/console/auth/signup', { email: 'ada@example.com', password: PASSWORD });
  t.equal(dup.statusCode, 409, 'e-mail is unique regardless of case');

  const login = await post('/console/auth/login', { email: 'ada@example.com', password: PASSWORD });
  t.equal(login.statusCode, 200);
  const pair = login.json();
  t.same({ type: pair.token_type, ttl: pair.expires_in }, { type: 'bearer', ttl: 900 });

  const unverified = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: { authorization: `Bearer ${pair.access_token}` } });
  t.equal(unverified.statusCode, 403);
  t.same(unverified.json(), { detail: 'e-mail not verified' });

  const bad = await post('/console/auth/verify-email', { token: 'not-a-token' });
  t.equal(bad.statusCode, 404);
  const verify = await post('/console/auth/verify-email', { token: tokenFromMail() });
  t.equal(verify.statusCode, 200);
  const again = await post('/console/auth/verify-email', { token: tokenFromMail() });
  t.equal(again.statusCode, 404, 'a verification token works once');

  const auth = { authorization: `Bearer ${pair.access_token}` };
  const list = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: auth });
  t.equal(list.statusCode, 200);
  t.same(list.json(), []);

  const refreshed = await post('/console/auth/refresh', { refresh_token: pair.refresh_token });
  t.equal(refreshed.statusCode, 200);
  t.not(refreshed.json().refresh_token, pair.refresh_token);

  const newAuth = { authorization: `Bearer ${refreshed.json().access_token}` };
  const out = await post('/console/auth/logout', {}, newAuth);
  t.equal(out.statusCode, 200);
  const after = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: newAuth });
  t.equal(after.statusCode, 401, 'logout revokes the family');
  const oldAccess = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: auth });
  t.equal(oldAccess.statusCode, 401, 'the earlier access token of the family is revoked too');
});

t.test('wrong e-mail and wrong password answer the same 401', async (t) => {
  const tenant = await createTenant(h);
  const wrongPw = await post('/console/auth/login', { email: tenant.email, password: 'not the password!!' });
  const noUser = await post('/console/auth/login', { email: 'nobody@example.com', password: 'not the password!!' });
  t.equal(wrongPw.statusCode, 401);
  t.equal(noUser.statusCode, 401);
  t.same(wrongPw.json(), noUser.json());
});

t.test('refresh token reuse revokes the whole family', async (t) => {
  const tenant = await createTenant(h);
  const first = await post('/console/auth/refresh', { refresh_token: tenant.refreshToken });
  t.equal(first.statusCode, 200);
  const reuse = await post('/console/auth/refresh', { refresh_token: tenant.refreshToken });
  t.equal(reuse.statusCode, 401);
  t.match(reuse.json().detail, /reuse/);
  const rotated = await post('/console/auth/refresh', { refresh_token: first.json().refresh_token });
  t.equal(rotated.statusCode, 401, 'the legitimate successor is revoked too');
  const access = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: { authorization: `Bearer ${first.json().access_token}` } });
  t.equal(access.statusCode, 401);
});

t.test('suspended accounts get 403 on console routes and cannot log in', async (t) => {
  const tenant = await createTenant(h);
  await setAccountFlag(h.ctx, tenant.email, 'suspended', true);
  const res = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: tenant.bearer });
  t.equal(res.statusCode, 403);
  t.same(res.json(), { detail: 'account suspended' });
  const login = await post('/console/auth/login', { email: tenant.email, password: PASSWORD });
  t.equal(login.statusCode, 403);
});

t.test('bearer problems are 401', async (t) => {
  for (const authorization of [undefined, 'Bearer', 'Basic abc', 'Bearer short', `Bearer ${'x'.repeat(43)}`]) {
    const res = await h.app.inject({ method: 'GET', url: '/console/v2/projects', headers: authorization ? { authorization } : {} });
    t.equal(res.statusCode, 401, String(authorization));
    t.type(res.json().detail, 'string');
  }
});

t.test('signup validation', async (t) => {
  const short = await post('/console/auth/signup', { email: 'x@example.com', password: 'short' });
  t.equal(short.statusCode, 422);
  t.same(short.json().detail[0].loc, ['body', 'password']);
  const email = await post('/console/auth/signup', { email: 'not-an-email', password: PASSWORD });
  t.same(email.json().detail[0].loc, ['body', 'email']);
});

t.test('tokens and passwords are stored only as hashes', async (t) => {
  const tenant = await createTenant(h);
  const [tok] = await h.ctx.sql`select count(*)::int as n from auth_tokens where token_hash = ${tenant.accessToken}`;
  t.equal(tok.n, 0);
  const [acc] = await h.ctx.sql`select password_hash from accounts where id = ${tenant.accountId}`;
  t.match(acc.password_hash, /^scrypt\$/);
  t.notMatch(acc.password_hash, PASSWORD);
});
