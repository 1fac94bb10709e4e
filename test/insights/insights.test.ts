import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { openAiError, SERVER_ERROR } from '../fakes/wire/openai.js';
import { activeSession, createAgentVersioned, TRANSCRIPT, waitFor } from '../transcripts/support.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { endSession } from '../../src/sessions/settlement.js';
import { startInsightsWorker, type AnalyseOutcome } from '../../src/insights/index.js';

// Post-call insights end to end: settlement queues the job, the BullMQ worker asks the agent's
// LLM (the wire-accurate fake OpenAI server) and stores CallInsightsInfo on the session.

const h = await startHarness();
const fake = await startProviderFakes({ pieceDelayMs: 0 });
const broken = await startProviderFakes();
broken.on('POST /v1/chat/completions', (_req, res) => openAiError(res, 500, SERVER_ERROR));
const outcomes: { id: string; kind: string }[] = [];
const stop = await startInsightsWorker(h.ctx, {
  retryDelayMs: 50,
  sweeper: false,
  onOutcome: (id, o: AnalyseOutcome | { kind: 'retry' }) => outcomes.push({ id, kind: o.kind }),
});
t.teardown(async () => {
  await stop();
  await fake.close();
  await broken.close();
  await h.close();
});
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
await fund(h, tenant.projectId, 10_000n * MINUTE_NANO);

const KEY = 'sk-insights-test-KEY1';
const CONFIG = {
  summary: true,
  success_criteria: 'The caller booked a table.',
  fields: [
    { name: 'party_size', type: 'integer', description: 'people in the booking', required: true },
    { name: 'day', type: 'enum', enum: ['Friday', 'Saturday'] },
    { name: 'vip', type: 'boolean' },
    'notes',
  ],
};
const openai = (baseUrl = fake.baseUrl) => ({ provider: 'openai' as const, model: 'gpt-4.1-mini', baseUrl, apiKey: KEY });

async function insightsOf(id: string) {
  return waitFor(async () => (await h.ctx.sql`select insights from voice_sessions where id = ${id} and insights is not null`)[0]?.insights, 15_000);
}
async function callWith(agentId: string, body: Record<string, unknown> = {}, transcript = TRANSCRIPT) {
  const id = await activeSession(h, tenant, agentId, body);
  await endSession(h.ctx, id, { outcome: 'completed', endReason: 'caller_hangup', transcript });
  return id;
}
const chatRequests = (f = fake) => f.requests.filter((r) => r.path === '/v1/chat/completions');
const list = async (query: string) =>
  (await h.app.inject({ method: 'GET', url: `/v2/voice/sessions?limit=200${query}`, headers: tenant.machine })).json().map((s: { id: string }) => s.id);

t.test('a call is analysed by its agent LLM; answers are coerced to the declared types', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { llm: openai(), insightConfig: CONFIG });
  fake.script.replies = [
    'Here you go:\n```json\n{"summary": "The caller booked a table for four on Friday.", "success": true, ' +
      '"data": {"party_size": "4", "day": "friday", "vip": "maybe", "notes": null, "extra": 1}}\n```',
  ];
  const before = chatRequests().length;
  const id = await callWith(agentId);
  const insights = await insightsOf(id);
  t.match(insights, {
    status: 'completed',
    summary: 'The caller booked a table for four on Friday.',
    success: true,
    model: 'gpt-4.1-mini',
    completed_at: /^\d{4}-\d\d-\d\dT/,
  });
  t.same(insights.data, { party_size: 4, day: 'Friday', vip: null, notes: null }, 'coerced, unknown keys dropped');
  t.notOk('error' in insights);

  const [req] = chatRequests().slice(before);
  t.equal(req.headers.authorization, `Bearer ${KEY}`);
  const body = JSON.parse(req.body.toString());
  t.equal(body.model, 'gpt-4.1-mini');
  t.equal(body.messages[0].role, 'system');
  t.match(body.messages[0].content, /single JSON object/);
  t.match(body.messages[0].content, /"party_size": integer \(required\) — people in the booking/);
  t.match(body.messages[0].content, /"day": one of \["Friday","Saturday"\]/);
  t.match(body.messages[0].content, /The caller booked a table\./);
  t.match(body.messages[1].content, /\[00:02\] user: I want to book a table for four on Friday\./);

  const api = (await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${id}`, headers: tenant.machine })).json();
  t.same(api.insights, insights, 'the API shows them');
  t.ok((await list('&has_insights=true')).includes(id), 'has_insights=true lists the session');
  t.notOk((await list('&has_insights=false')).includes(id), 'has_insights=false does not');
});

t.test('a required field the model did not give is null and named in error', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { llm: openai(), insightConfig: CONFIG });
  fake.script.replies = ['{"summary": "A short call.", "success": "no", "data": {"day": "Saturday", "vip": true, "notes": 12}}'];
  const insights = await insightsOf(await callWith(agentId));
  t.match(insights, { status: 'completed', summary: 'A short call.', success: false, error: 'required field missing or invalid: party_size' });
  t.same(insights.data, { party_size: null, day: 'Saturday', vip: true, notes: '12' });
});

t.test('output that is not a JSON object fails the analysis at once', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { llm: openai(), insightConfig: CONFIG });
  fake.script.replies = ['I am sorry, I cannot help with that.'];
  const before = chatRequests().length;
  const id = await callWith(agentId);
  const insights = await insightsOf(id);
  t.same(insights, { status: 'failed', summary: null, success: null, data: {}, model: 'gpt-4.1-mini', completed_at: insights.completed_at, error: 'model output is not a JSON object' });
  t.equal(chatRequests().length - before, 1, 'not retried');
  t.notOk((await list('&has_insights=true')).includes(id), 'a failed analysis produced no result: not has_insights=true');
  t.ok((await list('&has_insights=false')).includes(id), 'but has_insights=false');
});

t.test('a provider failure is retried three times, then recorded as failed', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { llm: openai(broken.baseUrl), insightConfig: { summary: true } });
  const id = await callWith(agentId);
  const insights = await insightsOf(id);
  t.match(insights, { status: 'failed', summary: null, model: 'gpt-4.1-mini', error: 'provider error: OpenAI is unavailable (HTTP 500, server_error)' });
  t.equal(chatRequests(broken).length, 3, 'three attempts');
  t.same(outcomes.filter((o) => o.id === id).map((o) => o.kind), ['retry', 'retry', 'stored']);
  t.notOk(JSON.stringify(insights).includes(KEY));
});

t.test('a realtime agent is analysed with a chat model of its provider', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { realtime: { baseUrl: fake.baseUrl, apiKey: KEY }, insightConfig: { summary: true, fields: ['topic'] } });
  fake.script.replies = ['{"summary": "Booking.", "success": null, "data": {"topic": "booking"}}'];
  const before = chatRequests().length;
  const insights = await insightsOf(await callWith(agentId));
  t.match(insights, { status: 'completed', summary: 'Booking.', success: null, data: { topic: 'booking' }, model: 'gpt-4o-mini' });
  t.equal(JSON.parse(chatRequests().slice(before)[0].body.toString()).model, 'gpt-4o-mini');
});

t.test('the local echo model gives a deterministic stand-in, also from an unstored transcript', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { storeTranscript: false, insightConfig: CONFIG });
  const id = await callWith(agentId);
  const insights = await insightsOf(id);
  t.same({ ...insights, completed_at: undefined }, {
    status: 'completed',
    summary: 'The caller first said: "I want to book a table for four on Friday." and last said: "Thanks, bye.".',
    success: null,
    data: { party_size: null, day: null, vip: null, notes: null },
    model: 'echo',
    completed_at: undefined,
  });
  t.same(await h.ctx.sql`select 1 from session_transcripts where session_id = ${id}`, [], 'the transcript was not stored');
});

t.test('no insight_config, or nothing said: no insights', async (t) => {
  const plain = await createAgentVersioned(h, tenant.projectId, { insightConfig: null });
  const a = await callWith(plain.agentId);
  const withConfig = await createAgentVersioned(h, tenant.projectId, { insightConfig: { summary: true } });
  const b = await callWith(withConfig.agentId, {}, []);
  await new Promise((r) => setTimeout(r, 300));
  const rows = await h.ctx.sql`select id, insights, insights_pending_since from voice_sessions where id in ${h.ctx.sql([a, b])}`;
  for (const r of rows) t.same({ insights: r.insights, pending: r.insights_pending_since }, { insights: null, pending: null }, r.id);
  t.notOk(outcomes.some((o) => o.id === a || o.id === b), 'no job');
});
