import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgent, createVerifiedAccount, fund, MINUTE_NANO } from '../sessions/fixtures.js';

// Idempotency-Key on every creating POST of the machine door (contract §11): a replay answers
// the first status and body with Idempotent-Replayed: true; another body with the key is 422
// at ["header","Idempotency-Key"]; concurrent requests with one key make one effect; a failed
// request leaves no key behind; keys are kept 24 h per project.

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);
const { agentId } = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1000n * MINUTE_NANO);

const post = (url: string, payload: object, key?: string, headers: Record<string, string> = tenant.machine) =>
  h.app.inject({ method: 'POST', url, headers: { ...headers, ...(key === undefined ? {} : { 'idempotency-key': key }) }, payload });
const count = async (table: 'voice_sessions' | 'agents' | 'webhook_endpoints') =>
  (await h.ctx.sql`select count(*)::int as n from ${h.ctx.sql(table)} where project_id = ${tenant.projectId}`)[0].n as number;

const account = await createVerifiedAccount(h, tenant.projectId);
const agentBody = {
  name: 'support',
  prompt: 'Be brief.',
  pipeline_mode: 'cascade',
  pipeline_config: {
    stt: { account_id: account, model: 'pocketsphinx-en-us' },
    llm: { account_id: account, model: 'echo' },
    tts: { account_id: account, model: 'espeak-ng', voice: 'en' },
  },
};

t.test('voice sessions: a replay answers the first 201 and body, marked as a replay; one session', async (t) => {
  const before = await count('voice_sessions');
  const first = await post('/v2/voice/sessions', { agent_id: agentId, metadata: { order: 1, lines: [1, 2] } }, 'sess-1');
  t.equal(first.statusCode, 201);
  t.notOk(first.headers['idempotent-replayed'], 'the first answer is not a replay');
  // The same body with its keys in another order is the same request.
  const again = await post('/v2/voice/sessions', { metadata: { lines: [1, 2], order: 1 }, agent_id: agentId }, 'sess-1');
  t.equal(again.statusCode, 201);
  t.equal(again.headers['idempotent-replayed'], 'true');
  t.same(again.json(), first.json(), 'the very same body, ws_url included');
  t.equal(await count('voice_sessions'), before + 1);
  t.ok(again.headers['x-ratelimit-remaining'], 'a replay is still a counted machine-door request');
});

t.test('the same key with another body is 422 at ["header","Idempotency-Key"]; another project may use the key', async (t) => {
  await post('/v2/voice/sessions', { agent_id: agentId }, 'sess-2');
  const other = await post('/v2/voice/sessions', { agent_id: agentId, metadata: { x: 1 } }, 'sess-2');
  t.equal(other.statusCode, 422);
  t.same(other.json().detail, [{ loc: ['header', 'Idempotency-Key'], msg: 'this key was already used with a different request body', type: 'idempotency_conflict' }]);
  // The key on another operation is another request too.
  const elsewhere = await post('/v2/agents', agentBody, 'sess-2');
  t.equal(elsewhere.statusCode, 422);

  const them = await createTenant(h);
  const theirAgent = await createAgent(h, them.projectId);
  await fund(h, them.projectId, 100n * MINUTE_NANO);
  const theirs = await post('/v2/voice/sessions', { agent_id: theirAgent.agentId }, 'sess-2', them.machine);
  t.equal(theirs.statusCode, 201);
  t.notOk(theirs.headers['idempotent-replayed']);
});

t.test('20 concurrent requests with one key: one effect, one original, 19 replays of it', async (t) => {
  const before = await count('voice_sessions');
  const all = await Promise.all(Array.from({ length: 20 }, () => post('/v2/voice/sessions', { agent_id: agentId }, 'race')));
  t.same([...new Set(all.map((r) => r.statusCode))], [201]);
  t.equal(new Set(all.map((r) => r.json().session.id)).size, 1, 'one session id');
  t.equal(all.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 19);
  t.equal(await count('voice_sessions'), before + 1);
});

t.test('agents and webhook endpoints: replayed, one effect each; the console door shares the project\'s keys', async (t) => {
  const agents = await count('agents');
  const a1 = await post('/v2/agents', agentBody, 'agent-1');
  const a2 = await post('/v2/agents', agentBody, 'agent-1');
  t.equal(a1.statusCode, 201);
  t.equal(a2.statusCode, 201);
  t.equal(a2.headers['idempotent-replayed'], 'true');
  t.same(a2.json(), a1.json(), 'the webhook secret shown once is the one replayed');
  const viaConsole = await post(`/console/v2/projects/${tenant.projectId}/agents`, agentBody, 'agent-1', tenant.bearer);
  t.equal(viaConsole.json().agent.id, a1.json().agent.id);
  t.equal(await count('agents'), agents + 1);

  const url = `/v2/projects/${tenant.projectId}/webhooks`;
  const hook = { name: 'ops', url: 'https://hooks.example.com/in' };
  const w1 = await post(url, hook, 'hook-1');
  const w2 = await post(url, hook, 'hook-1');
  t.equal(w1.statusCode, 201);
  t.equal(w2.headers['idempotent-replayed'], 'true');
  t.equal(w2.json().id, w1.json().id);
  t.equal(await count('webhook_endpoints'), 1);
});

t.test('a refused request leaves no key behind: its retry runs again', async (t) => {
  const poor = await createTenant(h);
  const poorAgent = await createAgent(h, poor.projectId);
  const refused = await post('/v2/voice/sessions', { agent_id: poorAgent.agentId }, 'after-topup', poor.machine);
  t.equal(refused.statusCode, 402);
  await fund(h, poor.projectId, 100n * MINUTE_NANO);
  const ok = await post('/v2/voice/sessions', { agent_id: poorAgent.agentId }, 'after-topup', poor.machine);
  t.equal(ok.statusCode, 201);
  t.notOk(ok.headers['idempotent-replayed']);
});

t.test('a bad key is 422 at ["header","Idempotency-Key"] and creates nothing', async (t) => {
  const before = await count('voice_sessions');
  for (const bad of ['', 'x'.repeat(256), 'tab\there', 'é']) {
    const res = await post('/v2/voice/sessions', { agent_id: agentId }, bad);
    t.equal(res.statusCode, 422, JSON.stringify(bad));
    t.same(res.json().detail[0].loc, ['header', 'Idempotency-Key']);
  }
  t.equal(await count('voice_sessions'), before);
  t.equal((await post('/v2/voice/sessions', { agent_id: agentId }, '~ !"#'.padEnd(255, 'k'))).statusCode, 201, '255 printable characters');
});

t.test('kept 24 h: an expired key runs the request again; a key whose first request died is taken over after its lease', async (t) => {
  const first = await post('/v2/voice/sessions', { agent_id: agentId }, 'day-old');
  await h.ctx.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'day-old'`;
  const later = await post('/v2/voice/sessions', { agent_id: agentId }, 'day-old');
  t.equal(later.statusCode, 201);
  t.notOk(later.headers['idempotent-replayed']);
  t.not(later.json().session.id, first.json().session.id);

  // A request that died after claiming its key: the key is pending with a lapsed lease.
  await h.ctx.sql`
    insert into idempotency_keys (project_id, key, request_sha256, state, owner, locked_until, created_at, expires_at)
    select project_id, 'orphan', request_sha256, 'pending', gen_random_uuid(), now() - interval '1 second', now(), now() + interval '1 day'
    from idempotency_keys where key = 'day-old'`;
  const retried = await post('/v2/voice/sessions', { agent_id: agentId }, 'orphan');
  t.equal(retried.statusCode, 201, 'the same request takes the orphaned key over');
  const [row] = await h.ctx.sql`select state, status_code from idempotency_keys where key = 'orphan'`;
  t.same(row, { state: 'done', status_code: 201 });
});
