import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { MAX_DEPTH as MAX_JSON_DEPTH } from '../../src/contract/text.js';
import { MAX_METADATA_BYTES } from '../../src/contract/voice-sessions.js';

// Bodies are bounded in depth and metadata in size before anything is stored: a 422 with the
// place, never a 500 (a 5,000-deep metadata object used to overflow the Postgres driver).

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);

const nested = (depth: number): unknown => {
  let v: unknown = 'leaf';
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
};

t.test('a 5,000-deep metadata object on POST /v2/voice/sessions is 422 at the first too-deep place', async (t) => {
  const payload = `{"agent_id":"00000000-0000-4000-8000-000000000000","metadata":${'{"a":'.repeat(5000)}"leaf"${'}'.repeat(5000)}}`;
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, payload });
  t.equal(res.statusCode, 422);
  const [err] = res.json().detail as { loc: (string | number)[]; msg: string; type: string }[];
  t.equal(err.msg, `nested more than ${MAX_JSON_DEPTH} levels deep`);
  t.equal(err.loc.length, MAX_JSON_DEPTH + 1, 'loc runs from body down to the first value past the limit');
  t.same(err.loc.slice(0, 3), ['body', 'metadata', 'a']);
});

t.test('a 100,000-deep array body is refused without a stack overflow', async (t) => {
  const payload = '['.repeat(100_000) + ']'.repeat(100_000);
  const res = await h.app.inject({ method: 'POST', url: '/console/v2/projects', headers: { ...tenant.bearer, 'content-type': 'application/json' }, payload });
  t.equal(res.statusCode, 422);
  t.match(res.json().detail[0].msg, /^nested more than/);
});

t.test('a body exactly at the depth limit is parsed and judged by its schema', async (t) => {
  // The body object is one level, so metadata nesting MAX_JSON_DEPTH - 1 objects keeps it within the limit.
  const payload = JSON.stringify({ agent_id: '00000000-0000-4000-8000-000000000000', metadata: nested(MAX_JSON_DEPTH - 1) });
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' }, payload });
  t.equal(res.statusCode, 404, 'past the body checks: the agent does not exist');
});

t.test('metadata over its size bound is 422 at body.metadata', async (t) => {
  const payload = { agent_id: '00000000-0000-4000-8000-000000000000', metadata: { note: 'x'.repeat(MAX_METADATA_BYTES) } };
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: { 'x-api-key': tenant.apiKey }, payload });
  t.equal(res.statusCode, 422);
  t.same(res.json().detail[0].loc, ['body', 'metadata']);
});
