import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { CATALOGUE } from '../../src/contract/catalogue.js';
import { findLocalEngines } from '../../src/providers/verify/local.js';
import { deadUrl, type FakeProvider } from '../fakes/providers/server.js';
import { recordVerification } from '../../src/db/repos/provider-accounts.js';
import { startFakeOpenAI } from '../fakes/providers/openai.js';
import { startFakeAnthropic } from '../fakes/providers/anthropic.js';
import { startFakeDeepgram } from '../fakes/providers/deepgram.js';
import { startFakeElevenLabs } from '../fakes/providers/elevenlabs.js';

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);
const readOnly = await createTenant(h, ['webhook:read']);

const KEYS = {
  openai: 'sk-proj-GOODgoodGOODgood1234',
  anthropic: 'sk-ant-api03-GOODgoodGOOD5678',
  deepgram: 'dg0123456789abcdefGOOD9012',
  elevenlabs: 'sk_elevenGOODgoodGOOD3456',
};
const fakes: Record<string, FakeProvider> = {
  openai: await startFakeOpenAI(KEYS.openai),
  anthropic: await startFakeAnthropic(KEYS.anthropic),
  deepgram: await startFakeDeepgram(KEYS.deepgram),
  elevenlabs: await startFakeElevenLabs(KEYS.elevenlabs, 'sk_elevenRESTRICTEDtts7777'),
};
t.teardown(() => Promise.all(Object.values(fakes).map((f) => f.close())));

const base = (projectId: string) => `/console/v2/projects/${projectId}/provider-accounts`;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
  h.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
const create = (payload: unknown, tenant = a) => call('POST', base(tenant.projectId), tenant.bearer, payload);
const projectRevision = async (tenant = a) => (await call('GET', `/console/v2/projects/${tenant.projectId}`, tenant.bearer)).json().revision as number;

t.test('catalogue on both doors', async (t) => {
  const machine = await call('GET', '/v2/providers/catalogue', a.machine);
  t.equal(machine.statusCode, 200);
  const consoleDoor = await call('GET', '/console/v2/providers/catalogue', a.bearer);
  t.equal(consoleDoor.statusCode, 200);
  t.same(machine.json(), consoleDoor.json());
  const byProvider = Object.fromEntries(machine.json().map((e: { provider: string; stages: object }) => [e.provider, Object.keys(e.stages).sort()]));
  t.same(byProvider, {
    openai: ['llm', 'realtime', 'stt', 'tts'],
    deepgram: ['stt', 'tts'],
    elevenlabs: ['tts'],
    anthropic: ['llm'],
    local: ['llm', 'stt', 'tts'],
  });
  t.same(machine.json().find((e: { provider: string }) => e.provider === 'local').stages, { stt: ['pocketsphinx-en-us'], llm: ['echo'], tts: ['espeak-ng'] });
  t.equal(machine.json().length, CATALOGUE.length);
});

t.test('catalogue refuses a key without voice:read and a missing session', async (t) => {
  const res = await call('GET', '/v2/providers/catalogue', readOnly.machine);
  t.equal(res.statusCode, 403);
  t.same(res.json(), { detail: 'API key lacks the required scope voice:read' });
  const none = await call('GET', '/v2/providers/catalogue', {});
  t.equal(none.statusCode, 401);
  t.same(none.json(), { detail: 'missing API key' });
  const anon = await call('GET', '/console/v2/providers/catalogue', {});
  t.equal(anon.statusCode, 401);
});

t.test('create: 201 with the account, the key sealed and never shown', async (t) => {
  const before = await projectRevision();
  const res = await create({ provider: 'openai', label: 'OpenAI main', credentials: { api_key: KEYS.openai }, base_url: fakes.openai.url });
  t.equal(res.statusCode, 201);
  const body = res.json();
  t.same(Object.keys(body).sort(), ['base_url', 'created_at', 'id', 'key_hint', 'label', 'project_id', 'provider', 'revision', 'status', 'status_detail', 'updated_at']);
  t.match(body, { project_id: a.projectId, provider: 'openai', label: 'OpenAI main', base_url: fakes.openai.url, status: 'unverified', status_detail: null, key_hint: '1234', revision: 1 });
  t.notOk(res.body.includes(KEYS.openai), 'the key is not in the response');
  t.equal(await projectRevision(), before + 1, 'the project revision moved');
  const [row] = await h.ctx.sql`select credentials_sealed from provider_accounts where id = ${body.id}`;
  t.notOk(row.credentials_sealed.includes(KEYS.openai));
  t.same(JSON.parse(h.ctx.keyring.decrypt(row.credentials_sealed, body.id)), { api_key: KEYS.openai });
  t.throws(() => h.ctx.keyring.decrypt(row.credentials_sealed, 'another-id'), 'sealed with the account id as associated data');
  for (const url of [base(a.projectId), `${base(a.projectId)}/${body.id}`]) {
    const got = await call('GET', url, a.bearer);
    t.equal(got.statusCode, 200);
    t.notOk(got.body.includes(KEYS.openai));
  }
});

t.test('create: 422 for each invalid body', async (t) => {
  const cases: [unknown, (string | number)[], string][] = [
    [{ provider: 'openai', label: 'x' }, ['body', 'credentials'], 'field required'],
    [{ provider: 'local', label: 'x', credentials: { api_key: 'abcdefgh1234' } }, ['body', 'credentials'], 'the local provider needs no credentials'],
    [{ provider: 'local', label: 'x', base_url: 'https://example.com' }, ['body', 'base_url'], 'the local provider runs on this machine and takes no base_url'],
    [{ provider: 'openai', label: 'x', credentials: { api_key: 'abcdefgh1234', secret: 'y' } }, ['body', 'credentials', 'secret'], 'unknown field'],
    [{ provider: 'openai', label: 'x', credentials: { api_key: 'short' } }, ['body', 'credentials', 'api_key'], 'Too small: expected string to have >=8 characters'],
    [{ provider: 'openai', label: 'x', credentials: { api_key: 'abcdefgh1234' }, base_url: 'ftp://files.example.com' }, ['body', 'base_url'], 'base_url must use https'],
    [{ provider: 'openai', label: 'x', credentials: { api_key: 'abcdefgh1234' }, base_url: 'https://example.com/v1?x=1' }, ['body', 'base_url'], 'base_url must not contain a query'],
    [{ provider: 'openai', label: '', credentials: { api_key: 'abcdefgh1234' } }, ['body', 'label'], 'Too small: expected string to have >=1 characters'],
    [{ provider: 'openai', label: 'x', credentials: { api_key: 'abcdefgh1234' }, colour: 'red' }, ['body', 'colour'], 'unknown field'],
  ];
  for (const [payload, loc, msg] of cases) {
    const res = await create(payload);
    t.equal(res.statusCode, 422, JSON.stringify(payload));
    t.same(res.json().detail.map((d: { loc: unknown }) => d.loc), [loc]);
    t.equal(res.json().detail[0].msg, msg);
  }
  const nul = await create({ provider: 'local', label: 'a\u0000b' });
  t.equal(nul.statusCode, 422);
  t.same(nul.json().detail, [{ loc: ['body', 'label'], msg: 'text must not contain NUL characters or unpaired surrogates', type: 'value_error' }]);
  const bad = await create({ provider: 'cohere', label: 'x', credentials: { api_key: 'abcdefgh1234' } });
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['body', 'provider']);
});

t.test('list pages newest first and GET one; another owner gets 404', async (t) => {
  const first = (await create({ provider: 'deepgram', label: 'dg list', credentials: { api_key: KEYS.deepgram }, base_url: fakes.deepgram.url })).json();
  const second = (await create({ provider: 'local', label: 'local list' })).json();
  t.equal(second.key_hint, '');
  const page = await call('GET', `${base(a.projectId)}?limit=2&offset=0`, a.bearer);
  t.equal(page.statusCode, 200);
  t.same(page.json().map((x: { id: string }) => x.id), [second.id, first.id]);
  const next = await call('GET', `${base(a.projectId)}?limit=1&offset=1`, a.bearer);
  t.same(next.json().map((x: { id: string }) => x.id), [first.id]);
  t.equal((await call('GET', `${base(a.projectId)}?limit=0`, a.bearer)).statusCode, 422);

  const otherProject = await call('GET', `${base(a.projectId)}/${first.id}`, b.bearer);
  t.equal(otherProject.statusCode, 404);
  t.same(otherProject.json(), { detail: 'project not found' });
  const ownProject = await call('GET', `${base(b.projectId)}/${first.id}`, b.bearer);
  t.equal(ownProject.statusCode, 404);
  t.same(ownProject.json(), { detail: 'provider account not found' });
  for (const [method, suffix, payload] of [['PATCH', '', { label: 'stolen' }], ['DELETE', '', undefined], ['POST', '/verify', undefined]] as const) {
    const res = await call(method, `${base(b.projectId)}/${first.id}${suffix}`, b.bearer, payload);
    t.equal(res.statusCode, 404, `${method} ${suffix}`);
    const res2 = await call(method, `${base(a.projectId)}/${first.id}${suffix}`, b.bearer, payload);
    t.same(res2.json(), { detail: 'project not found' });
  }
  t.equal((await call('GET', base(a.projectId), {})).statusCode, 401);
  t.equal((await call('GET', `${base(a.projectId)}/not-a-uuid`, a.bearer)).statusCode, 422);
});

const verify = (id: string) => call('POST', `${base(a.projectId)}/${id}/verify`, a.bearer);

t.test('verify against each provider: the real request shape, verified or invalid', async (t) => {
  const expectations = {
    openai: { headers: { authorization: `Bearer ${KEYS.openai}` }, path: '/v1/models', invalid: 'OpenAI rejected the API key (HTTP 401, invalid_api_key)' },
    anthropic: { headers: { 'x-api-key': KEYS.anthropic, 'anthropic-version': '2023-06-01' }, path: '/v1/models', invalid: 'Anthropic rejected the API key (HTTP 401, authentication_error)' },
    deepgram: { headers: { authorization: `Token ${KEYS.deepgram}` }, path: '/v1/projects', invalid: 'Deepgram rejected the API key (HTTP 401, INVALID_AUTH)' },
    elevenlabs: { headers: { 'xi-api-key': KEYS.elevenlabs }, path: '/v1/user', invalid: 'ElevenLabs rejected the API key (HTTP 401, invalid_api_key)' },
  } as const;
  for (const provider of Object.keys(expectations) as (keyof typeof expectations)[]) {
    const want = expectations[provider];
    const good = (await create({ provider, label: `${provider} good`, credentials: { api_key: KEYS[provider] }, base_url: fakes[provider].url })).json();
    const seenBefore = fakes[provider].requests.length;
    const res = await verify(good.id);
    t.equal(res.statusCode, 200, provider);
    t.match(res.json(), { id: good.id, status: 'verified', status_detail: null, revision: 1 }, provider);
    t.notOk(res.body.includes(KEYS[provider]), `${provider}: key not in the response`);
    const seen = fakes[provider].requests[seenBefore];
    t.equal(seen.method, 'GET');
    t.equal(seen.path, want.path);
    t.match(seen.headers, want.headers, `${provider} request headers`);

    const wrongKey = `${KEYS[provider]}WRONG`;
    const bad = (await create({ provider, label: `${provider} bad`, credentials: { api_key: wrongKey }, base_url: fakes[provider].url })).json();
    const res2 = await verify(bad.id);
    t.equal(res2.statusCode, 200);
    t.match(res2.json(), { status: 'invalid', status_detail: want.invalid }, provider);
    t.notOk(res2.body.includes(wrongKey) || res2.body.includes('WRONG'), `${provider}: wrong key not echoed`);
  }
});

t.test('verify: an ElevenLabs key without user_read is genuine, so verified with a note', async (t) => {
  const acct = (await create({ provider: 'elevenlabs', label: 'tts only', credentials: { api_key: 'sk_elevenRESTRICTEDtts7777' }, base_url: fakes.elevenlabs.url })).json();
  const res = await verify(acct.id);
  t.match(res.json(), { status: 'verified', status_detail: 'ElevenLabs accepted the key; it lacks the user_read permission, so only its authenticity was checked' });
});

t.test('verify: a server that is down or answers the wrong thing is invalid with a clear detail', async (t) => {
  const down = await deadUrl();
  const acct = (await create({ provider: 'openai', label: 'down', credentials: { api_key: KEYS.openai }, base_url: down })).json();
  const res = await verify(acct.id);
  t.equal(res.statusCode, 200);
  t.equal(res.json().status, 'invalid');
  t.equal(res.json().status_detail, `could not connect to ${new URL(down).host}: connection refused`);

  // An OpenAI account pointed at Deepgram's server: 404 for /v1/models.
  const wrong = (await create({ provider: 'openai', label: 'wrong', credentials: { api_key: KEYS.openai }, base_url: fakes.deepgram.url })).json();
  const res2 = await verify(wrong.id);
  t.equal(res2.json().status_detail, `${new URL(fakes.deepgram.url).host} has no /v1/models (HTTP 404); check base_url`);

  // base_url ending in /v1 (as OpenAI-compatible servers are often written) is not doubled.
  const v1 = (await create({ provider: 'openai', label: 'v1', credentials: { api_key: KEYS.openai }, base_url: `${fakes.openai.url}/v1/` })).json();
  t.equal((await verify(v1.id)).json().status, 'verified');
});

t.test('verify the local provider: verified only when its engines are installed', async (t) => {
  const local = (await create({ provider: 'local', label: 'this machine' })).json();
  const res = await verify(local.id);
  t.equal(res.statusCode, 200);
  const engines = await findLocalEngines();
  if (engines.espeakNg && engines.pocketsphinx && engines.pocketsphinxModel) {
    t.match(res.json(), { status: 'verified', status_detail: null });
  } else {
    t.equal(res.json().status, 'invalid');
    if (!engines.espeakNg) t.match(res.json().status_detail, /espeak-ng .* is not installed/);
    if (!engines.pocketsphinx) t.match(res.json().status_detail, /pocketsphinx .* is not installed/);
  }
});

t.test('PATCH changes only what is sent; new credentials or base_url need verifying again', async (t) => {
  const acct = (await create({ provider: 'openai', label: 'patch me', credentials: { api_key: KEYS.openai }, base_url: fakes.openai.url })).json();
  await verify(acct.id);
  const rev0 = await projectRevision();
  const url = `${base(a.projectId)}/${acct.id}`;

  const renamed = await call('PATCH', url, a.bearer, { label: 'renamed' });
  t.equal(renamed.statusCode, 200);
  t.match(renamed.json(), { label: 'renamed', status: 'verified', revision: 2, base_url: fakes.openai.url, key_hint: '1234' });
  t.equal(await projectRevision(), rev0 + 1);

  const newKey = 'sk-proj-NEWnewNEWnew9876';
  const rekeyed = await call('PATCH', url, a.bearer, { credentials: { api_key: newKey } });
  t.match(rekeyed.json(), { label: 'renamed', status: 'unverified', status_detail: null, revision: 3, key_hint: '9876' });
  t.notOk(rekeyed.body.includes(newKey));
  t.equal((await verify(acct.id)).json().status_detail, 'OpenAI rejected the API key (HTTP 401, invalid_api_key)');
  await call('PATCH', url, a.bearer, { credentials: { api_key: KEYS.openai } });
  t.equal((await verify(acct.id)).json().status, 'verified');

  const sameUrl = await call('PATCH', url, a.bearer, { base_url: fakes.openai.url });
  t.equal(sameUrl.json().status, 'verified', 'the same base_url is no change');
  const moved = await call('PATCH', url, a.bearer, { base_url: null });
  t.match(moved.json(), { base_url: null, status: 'unverified' });

  const empty = await call('PATCH', url, a.bearer, {});
  t.equal(empty.statusCode, 422);
  t.same(empty.json().detail, [{ loc: ['body'], msg: 'send at least one of label, credentials, base_url', type: 'value_error' }]);
  const stray = await call('PATCH', url, a.bearer, { provider: 'anthropic' });
  t.equal(stray.statusCode, 422);
  t.same(stray.json().detail[0].loc, ['body', 'provider']);

  const local = (await create({ provider: 'local', label: 'local patch' })).json();
  const localKey = await call('PATCH', `${base(a.projectId)}/${local.id}`, a.bearer, { credentials: { api_key: 'abcdefgh1234' } });
  t.equal(localKey.statusCode, 422);
  t.same(localKey.json().detail[0].loc, ['body', 'credentials']);
});

t.test('a verification result for credentials changed meanwhile is not recorded', async (t) => {
  const acct = (await create({ provider: 'openai', label: 'race', credentials: { api_key: KEYS.openai }, base_url: fakes.openai.url })).json();
  await call('PATCH', `${base(a.projectId)}/${acct.id}`, a.bearer, { credentials: { api_key: 'sk-proj-changedMEANWHILE' } });
  const stale = await recordVerification(h.ctx, a.projectId, acct.id, acct.revision, { status: 'verified', detail: null });
  t.match(stale, { status: 'unverified', revision: 2 });
});

t.test('DELETE refuses while an active agent uses the account, then soft-deletes', async (t) => {
  const acct = (await create({ provider: 'openai', label: 'in use', credentials: { api_key: KEYS.openai }, base_url: fakes.openai.url })).json();
  await verify(acct.id);
  const agent = await call('POST', '/v2/agents', a.machine, {
    name: 'realtime agent',
    prompt: 'Be brief.',
    pipeline_mode: 'realtime',
    pipeline_config: { realtime: { account_id: acct.id, model: 'gpt-realtime', voice: 'marin' } },
  });
  t.equal(agent.statusCode, 201);
  const url = `${base(a.projectId)}/${acct.id}`;
  const refused = await call('DELETE', url, a.bearer);
  t.equal(refused.statusCode, 409);
  t.same(refused.json(), { detail: 'provider account is used by 1 active agent' });

  t.equal((await call('DELETE', `/v2/agents/${agent.json().agent.id}`, a.machine)).statusCode, 200);
  const rev0 = await projectRevision();
  const deleted = await call('DELETE', url, a.bearer);
  t.equal(deleted.statusCode, 200);
  t.equal(deleted.json().id, acct.id);
  t.equal(await projectRevision(), rev0 + 1);
  t.equal((await call('GET', url, a.bearer)).statusCode, 404);
  t.equal((await call('DELETE', url, a.bearer)).statusCode, 404);
  const list = await call('GET', `${base(a.projectId)}?limit=200`, a.bearer);
  t.notOk(list.json().some((x: { id: string }) => x.id === acct.id));
  const [row] = await h.ctx.sql`select credentials_sealed, deleted_at from provider_accounts where id = ${acct.id}`;
  t.equal(row.credentials_sealed, null, 'the sealed key is dropped');
  t.ok(row.deleted_at);
});

t.test('provider accounts are not on the machine door', async (t) => {
  const res = await call('GET', `/v2/projects/${a.projectId}/provider-accounts`, a.machine);
  t.equal(res.statusCode, 404);
});
