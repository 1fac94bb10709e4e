import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { createAgent, fund, MINUTE_NANO } from './fixtures.js';

const h = await startHarness();
t.teardown(h.close);

const post = (headers: Record<string, string>, payload: unknown, url = '/v2/voice/sessions') =>
  h.app.inject({ method: 'POST', url, headers, payload: payload as object });

t.test('admission errors come in contract order', async (t) => {
  const a = await createTenant(h);
  const b = await createTenant(h);
  const agent = await createAgent(h, a.projectId, { variables: [{ name: 'name', required: true }, { name: 'city', required: false }] });
  const foreign = await createAgent(h, b.projectId);
  const inactive = await createAgent(h, a.projectId, { active: false, variables: [{ name: 'name', required: true }] });
  const unverified = await createAgent(h, a.projectId, { accountStatus: 'unverified' });

  // 422 body: sample rates and non-string variables, before anything about the agent.
  let res = await post(a.machine, { agent_id: '00000000-0000-0000-0000-000000000000', sample_rate_in: 44100 });
  t.equal(res.statusCode, 422);
  t.same(res.json().detail[0].loc, ['body', 'sample_rate_in']);
  res = await post(a.machine, { agent_id: agent.agentId, sample_rate_out: 22050 });
  t.same(res.json().detail[0].loc, ['body', 'sample_rate_out']);
  res = await post(a.machine, { agent_id: agent.agentId, variables: { name: 3 } });
  t.equal(res.statusCode, 422);
  t.same(res.json().detail[0].loc, ['body', 'variables', 'name']);
  res = await post(a.machine, { agent_id: agent.agentId, colour: 'red' });
  t.same(res.json().detail[0].loc, ['body', 'colour']);

  // 404: unknown agent and another project's agent look the same.
  res = await post(a.machine, { agent_id: '00000000-0000-4000-8000-000000000000' });
  t.equal(res.statusCode, 404);
  const other = await post(a.machine, { agent_id: foreign.agentId });
  t.equal(other.statusCode, 404);
  t.same(other.json(), res.json());

  // 409 inactive comes before variables.
  res = await post(a.machine, { agent_id: inactive.agentId, variables: { nope: 'x' } });
  t.equal(res.statusCode, 409);

  // 422 variables: missing required and undeclared, each named.
  res = await post(a.machine, { agent_id: agent.agentId, variables: { extra: 'x' } });
  t.equal(res.statusCode, 422);
  const locs = res.json().detail.map((d: { loc: string[] }) => d.loc.join('.')).sort();
  t.same(locs, ['body.variables.extra', 'body.variables.name']);

  // 503 unverified provider comes before the (empty) wallet.
  res = await post(a.machine, { agent_id: unverified.agentId });
  t.equal(res.statusCode, 503);
  t.equal(res.json().detail, 'provider accounts unverified or unavailable');

  // 402 wallet: nothing funded. Then exactly one 10-minute hold's worth.
  res = await post(a.machine, { agent_id: agent.agentId, variables: { name: 'Ann' } });
  t.equal(res.statusCode, 402);
  await fund(h, a.projectId, 10n * MINUTE_NANO);
  await setProjectLimits(h.ctx, a.projectId, { max_concurrent_sessions: 0 });
  // 402 comes before 429: asking for more than the wallet covers.
  res = await post(a.machine, { agent_id: agent.agentId, variables: { name: 'Ann' }, max_duration_seconds: 601 });
  t.equal(res.statusCode, 402);
  res = await post(a.machine, { agent_id: agent.agentId, variables: { name: 'Ann' } });
  t.equal(res.statusCode, 429);
  t.same(res.json(), { detail: 'concurrency limit reached' });
  t.match(res.headers['retry-after'], /^\d+$/);
  const wallet = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${a.projectId}/wallet`, headers: a.bearer });
  t.same(wallet.json(), { currency: 'USD', money_scale: 1_000_000_000, balance_nano_usd: '50000000', held_nano_usd: '0', available_nano_usd: '50000000' });
});

t.test('admitted session freezes snapshot, rates and capture flags', async (t) => {
  const a = await createTenant(h);
  const agent = await createAgent(h, a.projectId, { maxDurationSeconds: 300, record: false, storeTranscript: true });
  await fund(h, a.projectId, 2000n * MINUTE_NANO);
  const res = await post(a.bearer, { agent_id: agent.agentId, record: true, store_transcript: false, metadata: { crm: 7 }, max_duration_seconds: 9000 }, `/console/v2/projects/${a.projectId}/voice/sessions`);
  t.equal(res.statusCode, 201);
  const body = res.json();
  t.equal(body.expires_in_seconds, 60);
  t.match(body.ws_url, new RegExp(`^ws://127\\.0\\.0\\.1:0/v2/voice/sessions/${body.session.id}/stream\\?token=[A-Za-z0-9_-]{43}$`));
  const s = body.session;
  t.equal(s.status, 'created');
  t.equal(s.direction, 'web');
  t.equal(s.max_duration_seconds, 300);
  t.equal(s.record, false);
  t.equal(s.store_transcript, false);
  t.equal(s.rate_nano_usd_per_min, '5000000');
  t.equal(s.rate_version, '2026-01');
  t.equal(s.hold_nano_usd, '25000000');
  t.equal(s.cost_nano_usd, '0');
  t.equal(s.currency, 'USD');
  t.equal(s.money_scale, 1_000_000_000);
  t.equal(s.project_revision, 1);
  t.equal(s.agent_version, 1);
  t.same(s.metadata, { crm: 7 });
  t.equal(s.sample_rate_in, 16000);
  t.equal(s.sample_rate_out, 24000);
  t.same(Object.keys(s.pipeline_snapshot).sort(), ['llm', 'stt', 'tts']);
  t.equal(s.pipeline_snapshot.tts.provider, 'local');
  t.equal(s.pipeline_snapshot.tts.account_revision, 1);
  t.notMatch(JSON.stringify(s), /sealed|credential|token/);
  const stored = await h.ctx.sql`select token_hash from voice_sessions where id = ${s.id}`;
  t.equal(stored[0].token_hash.length, 64);
  t.notOk(body.ws_url.includes(stored[0].token_hash));

  // Defaults: 600 s when neither side sets one.
  const plain = await createAgent(h, a.projectId);
  const d = await post(a.machine, { agent_id: plain.agentId });
  t.equal(d.json().session.max_duration_seconds, 600);
  t.equal(d.json().session.hold_nano_usd, '50000000');
  const capped = await post(a.machine, { agent_id: plain.agentId, max_duration_seconds: 99999 });
  t.equal(capped.json().session.max_duration_seconds, 14400);
});

t.test('50 concurrent admissions against a wallet covering 3: exactly 3 admitted', async (t) => {
  const a = await createTenant(h);
  await setProjectLimits(h.ctx, a.projectId, { max_concurrent_sessions: 100 });
  const agent = await createAgent(h, a.projectId);
  await fund(h, a.projectId, 30n * MINUTE_NANO + 1n); // three 600 s holds
  const results = await Promise.all(Array.from({ length: 50 }, () => post(a.machine, { agent_id: agent.agentId })));
  const codes = results.map((r) => r.statusCode);
  t.equal(codes.filter((c) => c === 201).length, 3);
  t.equal(codes.filter((c) => c === 402).length, 47);
  const [w] = await h.ctx.sql`select balance_nano_usd, held_nano_usd from wallets where project_id = ${a.projectId}`;
  t.equal(w.held_nano_usd, 30n * MINUTE_NANO);
  t.ok(w.balance_nano_usd - w.held_nano_usd >= 0n);
  const holds = await h.ctx.sql`select count(*)::int as n from wallet_ledger where project_id = ${a.projectId} and kind = 'hold'`;
  t.equal(holds[0].n, 3);
});

t.test('concurrency slots: the limit admits exactly that many', async (t) => {
  const a = await createTenant(h);
  await setProjectLimits(h.ctx, a.projectId, { max_concurrent_sessions: 2 });
  const agent = await createAgent(h, a.projectId);
  await fund(h, a.projectId, 1000n * MINUTE_NANO);
  const results = await Promise.all(Array.from({ length: 6 }, () => post(a.machine, { agent_id: agent.agentId })));
  t.same(results.map((r) => r.statusCode).sort(), [201, 201, 429, 429, 429, 429]);
  // A refused admission left no hold behind.
  const [w] = await h.ctx.sql`select held_nano_usd from wallets where project_id = ${a.projectId}`;
  t.equal(w.held_nano_usd, 2n * 10n * MINUTE_NANO);
});

t.test('reads: list with filters and paging, get, other project 404, ledger', async (t) => {
  const a = await createTenant(h);
  const b = await createTenant(h);
  await setProjectLimits(h.ctx, a.projectId, { max_concurrent_sessions: 50 });
  const agent1 = await createAgent(h, a.projectId);
  const agent2 = await createAgent(h, a.projectId);
  await fund(h, a.projectId, 1000n * MINUTE_NANO);
  const ids: string[] = [];
  for (const agentId of [agent1.agentId, agent2.agentId, agent1.agentId]) {
    const r = await post(a.machine, { agent_id: agentId });
    ids.push(r.json().session.id);
  }
  await h.ctx.sql`update voice_sessions set insights = '{"status":"completed","summary":"x","success":true,"data":{},"model":"m","completed_at":"2026-01-01T00:00:00.000Z"}', status = 'completed' where id = ${ids[0]}`;
  await h.ctx.sql`update voice_sessions set insights = '{"status":"failed","summary":null,"success":null,"data":{},"model":"m","completed_at":"2026-01-01T00:00:00.000Z","error":"x"}' where id = ${ids[1]}`;
  const list = async (q: string, headers: Record<string, string> = a.machine, base = '/v2/voice/sessions') =>
    h.app.inject({ method: 'GET', url: `${base}${q}`, headers });
  let res = await list('');
  t.equal(res.statusCode, 200);
  t.same(res.json().map((s: { id: string }) => s.id), [...ids].reverse());
  res = await list(`?agent_id=${agent1.agentId}`);
  t.same(res.json().map((s: { id: string }) => s.id), [ids[2], ids[0]]);
  res = await list('?has_insights=true');
  t.same(res.json().map((s: { id: string }) => s.id), [ids[0]]);
  res = await list('?has_insights=false');
  t.same(res.json().map((s: { id: string }) => s.id), [ids[2], ids[1]], 'every other session, the failed analysis included');
  res = await list('?status=completed');
  t.same(res.json().map((s: { id: string }) => s.id), [ids[0]]);
  res = await list('?status=created&limit=1&offset=1');
  t.same(res.json().map((s: { id: string }) => s.id), [ids[1]]);
  res = await list(`?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
  t.same(res.json(), []);
  res = await list(`?to=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`);
  t.equal(res.json().length, 3);
  res = await list('?status=ringing');
  t.equal(res.statusCode, 422);
  t.same(res.json().detail[0].loc, ['query', 'status']);
  res = await list('?limit=201');
  t.equal(res.statusCode, 422);
  res = await list('?from=yesterday');
  t.same(res.json().detail[0].loc, ['query', 'from']);
  res = await list('', a.bearer, `/console/v2/projects/${a.projectId}/voice/sessions`);
  t.equal(res.json().length, 3);

  const one = await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${ids[1]}`, headers: a.machine });
  t.equal(one.statusCode, 200);
  t.equal(one.json().agent_id, agent2.agentId);
  const foreign = await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${ids[1]}`, headers: b.machine });
  t.equal(foreign.statusCode, 404);
  const foreignConsole = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${a.projectId}/voice/sessions/${ids[1]}`, headers: b.bearer });
  t.equal(foreignConsole.statusCode, 404);

  const ledger = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${a.projectId}/wallet/ledger?limit=10`, headers: a.bearer });
  t.equal(ledger.statusCode, 200);
  const kinds = ledger.json().map((e: { kind: string }) => e.kind);
  t.same(kinds.sort(), ['credit', 'hold', 'hold', 'hold']);
  const w = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${a.projectId}/wallet`, headers: b.bearer });
  t.equal(w.statusCode, 404);
});
