import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createVerifiedAccount } from '../sessions/fixtures.js';
import { InsightConfig } from '../../src/contract/agents.js';
import { coerceField, echoInsights, extractJsonObject, insightPlan, parseInsights } from '../../src/insights/index.js';
import { inlineRefs } from '../openapi/inline-refs.js';

// InsightConfigBody on the agent routes (strict, 422 naming the key), its normalisation, and
// the pieces that read a model's answer.

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);
const local = await createVerifiedAccount(h, tenant.projectId);
const pipeline = {
  stt: { account_id: local, model: 'pocketsphinx-en-us' },
  llm: { account_id: local, model: 'echo' },
  tts: { account_id: local, model: 'espeak-ng', voice: 'en' },
};
const create = (insight_config: unknown) =>
  h.app.inject({ method: 'POST', url: '/v2/agents', headers: tenant.machine, payload: { name: 'a', prompt: 'p', pipeline_mode: 'cascade', pipeline_config: pipeline, insight_config } });

t.test('a valid config is stored with its defaults and read back', async (t) => {
  const config = {
    success_criteria: 'The caller booked.',
    fields: [{ name: 'size', type: 'integer', required: true }, { name: 'tier', type: 'enum', enum: ['gold', 'silver'], description: 'loyalty tier' }, 'notes'],
  };
  const res = await create(config);
  t.equal(res.statusCode, 201, 'created');
  const agent = res.json().agent;
  t.same(agent.insight_config, {
    summary: true,
    success_criteria: 'The caller booked.',
    fields: [{ name: 'size', type: 'integer', required: true }, { name: 'tier', type: 'enum', enum: ['gold', 'silver'], description: 'loyalty tier', required: false }, 'notes'],
  });
  const [v] = await h.ctx.sql`select document->'insight_config' as c from agent_versions where agent_id = ${agent.id} and version = 1`;
  t.same(v.c, agent.insight_config, 'the version document holds it');
  const upd = await h.app.inject({ method: 'PATCH', url: `/v2/agents/${agent.id}`, headers: tenant.machine, payload: { insight_config: { summary: false } } });
  t.equal(upd.statusCode, 200, 'updated');
  t.same(upd.json().insight_config, { summary: false });
  const cleared = await h.app.inject({ method: 'PATCH', url: `/v2/agents/${agent.id}`, headers: tenant.machine, payload: { insight_config: null } });
  t.equal(cleared.json().insight_config, null);
  t.equal((await create({})).json().agent.insight_config.summary, true, '{} is a summary-only config');
});

t.test('invalid configs: 422 with a loc naming the key', async (t) => {
  const field = (f: Record<string, unknown>) => ({ fields: [{ name: 'x', type: 'string', ...f }] });
  const cases: [unknown, (string | number)[], string | RegExp | undefined][] = [
    [{ summary: true, note: 1 }, ['note'], 'unknown field'],
    [{ summary: 'yes' }, ['summary'], undefined],
    [{ success_criteria: 'x'.repeat(2001) }, ['success_criteria'], undefined],
    [{ success_criteria: '' }, ['success_criteria'], undefined],
    [field({ extra: true }), ['fields', 0, 'extra'], 'unknown field'],
    [field({ name: '9lives' }), ['fields', 0, 'name'], /must match/],
    [field({ name: 'a'.repeat(65) }), ['fields', 0, 'name'], /must match/],
    [field({ type: 'date' }), ['fields', 0, 'type'], undefined],
    [field({ type: 'enum' }), ['fields', 0, 'enum'], 'field required when type is enum'],
    [field({ enum: ['a'] }), ['fields', 0, 'enum'], 'only allowed when type is enum'],
    [field({ type: 'enum', enum: [] }), ['fields', 0, 'enum'], undefined],
    [field({ type: 'enum', enum: Array.from({ length: 51 }, (_, i) => `v${i}`) }), ['fields', 0, 'enum'], undefined],
    [field({ type: 'enum', enum: ['a', 'b', 'a'] }), ['fields', 0, 'enum', 2], 'duplicate enum value'],
    [field({ required: 'yes' }), ['fields', 0, 'required'], undefined],
    [{ fields: [{ name: 'x', type: 'string' }, { name: 'x', type: 'number' }] }, ['fields', 1, 'name'], 'duplicate field name'],
    [{ fields: ['a', 'a'] }, ['fields', 1], 'duplicate field name'],
    [{ fields: ['bad name'] }, ['fields', 0], /must match/],
    [{ fields: [7] }, ['fields', 0], 'must be a field name or a {name, type, ...} object'],
    [{ fields: Array.from({ length: 33 }, (_, i) => `f${i}`) }, ['fields'], undefined],
    [{ fields: [{ type: 'string' }] }, ['fields', 0, 'name'], 'field required'],
    [['summary'], [], undefined],
  ];
  for (const [config, loc, msg] of cases) {
    const res = await create(config);
    t.equal(res.statusCode, 422, JSON.stringify(config).slice(0, 80));
    const want = JSON.stringify(['body', 'insight_config', ...loc]);
    const hit = res.json().detail.find((d: { loc: unknown }) => JSON.stringify(d.loc) === want);
    t.ok(hit, `${want} in ${res.body.slice(0, 300)}`);
    if (hit && msg) t.match(hit.msg, msg);
  }
});

t.test('/openapi.json documents InsightConfigBody and CallInsightsInfo', async (t) => {
  const doc = inlineRefs((await h.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  const body = doc.paths['/v2/agents'].post.requestBody.content['application/json'].schema;
  const ic = body.properties.insight_config.anyOf.find((s: { type?: string }) => s.type === 'object');
  t.same(Object.keys(ic.properties).sort(), ['fields', 'success_criteria', 'summary']);
  t.equal(ic.additionalProperties, false);
  const session = doc.paths['/v2/voice/sessions/{session_id}'].get.responses['200'].content['application/json'].schema;
  const info = session.properties.insights.anyOf.find((s: { type?: string }) => s.type === 'object');
  t.same(info.required.sort(), ['completed_at', 'data', 'model', 'status', 'success', 'summary']);
});

t.test('insightPlan normalises; an invalid stored config has no plan', async (t) => {
  t.same(insightPlan({ fields: ['a', { name: 'b', type: 'boolean' }] }), {
    summary: true,
    successCriteria: null,
    fields: [{ name: 'a', type: 'string', required: false }, { name: 'b', type: 'boolean', required: false }],
  });
  t.equal(insightPlan({ whatever: 1 }), null);
  t.ok(InsightConfig.safeParse({ summary: false }).success);
});

t.test('reading model answers', async (t) => {
  t.same(extractJsonObject('{"a":1}'), { a: 1 });
  t.same(extractJsonObject('```json\n{"a":1}\n```'), { a: 1 });
  t.same(extractJsonObject('```\n{"a":1}\n```'), { a: 1 });
  t.same(extractJsonObject('Sure! {"a": {"b": 2}} Hope that helps.'), { a: { b: 2 } });
  t.equal(extractJsonObject('[1,2]'), null);
  t.equal(extractJsonObject('no json here'), null);
  t.equal(extractJsonObject('{"a": '), null);

  const f = (type: string, extra: Record<string, unknown> = {}) => ({ name: 'f', type, required: false, ...extra }) as never;
  const cases: [string, unknown, unknown][] = [
    ['string', ' hi ', 'hi'], ['string', 3, '3'], ['string', true, 'true'], ['string', { a: 1 }, null], ['string', '  ', null],
    ['number', 2.5, 2.5], ['number', '2.5', 2.5], ['number', 'two', null], ['number', '', null], ['number', Number.POSITIVE_INFINITY, null],
    ['integer', 4, 4], ['integer', '4', 4], ['integer', 4.5, null], ['integer', '4.0', null],
    ['boolean', false, false], ['boolean', 'Yes', true], ['boolean', 'no', false], ['boolean', 1, null],
    ['string', null, null], ['number', undefined, null],
  ];
  for (const [type, value, want] of cases) t.same(coerceField(f(type), value), want, `${type} ${JSON.stringify(value)}`);
  const en = f('enum', { enum: ['Gold', 'Silver'] });
  t.equal(coerceField(en, 'Gold'), 'Gold');
  t.equal(coerceField(en, ' gold '), 'Gold');
  t.equal(coerceField(en, 'bronze'), null);

  const plan = { summary: true, successCriteria: null, fields: [f('integer', { name: 'n', required: true })] } as never;
  t.same(parseInsights('{"summary": "", "success": true, "data": []}', plan), {
    summary: null,
    success: null,
    data: { n: null },
    problems: ['summary missing', 'required field missing or invalid: n'],
  });
  t.throws(() => parseInsights('nope', plan), { message: 'model output is not a JSON object' });
});

t.test('echo summaries', async (t) => {
  const plan = { summary: true, successCriteria: 'x', fields: [{ name: 'a', type: 'string', required: true }] } as never;
  const e = (role: string, text: string) => ({ role, text, start_ms: 0, end_ms: 0 });
  t.same(echoInsights(plan, [e('assistant', 'Hi')]), { summary: 'The caller said nothing.', success: null, data: { a: null }, problems: [] });
  t.equal(echoInsights(plan, [e('user', 'only this')]).summary, 'The caller said: "only this".');
  const long = 'word '.repeat(100);
  const s = echoInsights(plan, [e('user', long), e('user', 'bye')]).summary!;
  t.match(s, /^The caller first said: "(word ){31}word…" and last said: "bye"\.$/);
  t.equal(echoInsights({ ...(plan as object), summary: false } as never, [e('user', 'x')]).summary, null);
});
