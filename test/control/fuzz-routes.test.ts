import fc from 'fast-check';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { inlineRefs } from '../openapi/inline-refs.js';

// Property: whatever a client sends to any documented route (mutated bodies, odd path
// values, wrong or missing credentials, odd content types), the answer is never a 5xx.

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema; enum?: unknown[]; anyOf?: JsonSchema[]; const?: unknown; format?: string; minimum?: number };
type Operation = { method: string; path: string; body?: JsonSchema };

/** A plausible value for a JSON schema: the starting point that mutations then break. */
function sample(s: JsonSchema | undefined, depth = 0): unknown {
  if (!s || depth > 4) return null;
  if (s.const !== undefined) return s.const;
  if (s.enum) return s.enum[0];
  if (s.anyOf) return sample(s.anyOf.find((x) => x.type !== 'null') ?? s.anyOf[0], depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
    case 'array':
      return [sample(s.items, depth + 1)];
    case 'string':
      return s.format === 'uuid' ? '00000000-0000-4000-8000-000000000000' : s.format === 'email' ? 'a@example.com' : 'https://example.com/x';
    case 'integer':
    case 'number':
      return s.minimum ?? 1;
    case 'boolean':
      return true;
    default:
      return null;
  }
}

const doc = inlineRefs((await h.app.inject({ method: 'GET', url: '/openapi.json' })).json()) as {
  paths: Record<string, Record<string, { requestBody?: { content: { 'application/json': { schema: JsonSchema } } } }>>;
};
const operations: Operation[] = Object.entries(doc.paths).flatMap(([path, ops]) =>
  Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, body: op.requestBody?.content['application/json'].schema })),
);
t.ok(operations.length >= 10, `${operations.length} documented operations`);

const pathValue = fc.oneof(
  fc.constant(tenant.projectId),
  fc.uuid(),
  fc.string({ maxLength: 40 }),
  fc.constantFrom('%00', '..', '%2F', 'a'.repeat(3000), '-1', '0', 'null', '%E0%A4%A'),
);
const mutate = (valid: unknown) =>
  fc.oneof(
    fc.constant(valid),
    fc.jsonValue(),
    fc.tuple(fc.string({ maxLength: 12 }), fc.jsonValue()).map(([k, v]) => (typeof valid === 'object' && valid ? { ...valid, [k]: v } : v)),
    fc.tuple(fc.nat(), fc.jsonValue()).map(([i, v]) => {
      if (typeof valid !== 'object' || !valid) return v;
      const keys = Object.keys(valid);
      if (!keys.length) return v;
      return { ...valid, [keys[i % keys.length]]: v };
    }),
    fc.nat().map((i) => {
      if (typeof valid !== 'object' || !valid) return valid;
      const copy = { ...(valid as Record<string, unknown>) };
      const keys = Object.keys(copy);
      if (keys.length) delete copy[keys[i % keys.length]];
      return copy;
    }),
  );
const credentials = fc.constantFrom<Record<string, string>>(
  {},
  tenant.machine,
  tenant.bearer,
  { ...tenant.machine, ...tenant.bearer },
  { 'x-api-key': 'vk_garbage' },
  { authorization: 'Bearer garbage-garbage-garbage-garbage' },
);
const contentType = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/vnd.api+json');
const rawBody = fc.oneof(fc.constant(undefined), fc.string({ maxLength: 50 }), fc.constantFrom('{', '[]', 'null', '"x"', '{"__proto__":{"x":1}}', '{"constructor":{"prototype":{}}}'));

t.test('no request to a documented route answers 5xx', async (t) => {
  const op = fc.constantFrom(...operations).chain((o) =>
    fc.record({
      op: fc.constant(o),
      params: fc.array(pathValue, { minLength: 4, maxLength: 4 }),
      body: fc.oneof(mutate(sample(o.body)).map((b) => ({ json: b as unknown })), rawBody.map((raw) => ({ raw }))),
      headers: credentials,
      contentType,
      query: fc.constantFrom('', '?limit=0', '?limit=abc', '?offset=-1', '?include_inactive=maybe', '?limit=200&offset=5', '?status=weird', '?from=yesterday'),
    }),
  );
  await fc.assert(
    fc.asyncProperty(op, async ({ op, params, body, headers, contentType, query }) => {
      let i = 0;
      const url = op.path.replace(/\{[a-z_]+\}/g, () => encodeURIComponent(String(params[i++]))) + query;
      const payload = 'json' in body ? (body.json === undefined ? undefined : JSON.stringify(body.json)) : body.raw;
      const res = await h.app.inject({
        method: op.method as 'GET',
        url,
        headers: { ...headers, ...(payload !== undefined ? { 'content-type': contentType } : {}) },
        payload,
      });
      if (res.statusCode >= 500) throw new Error(`${op.method} ${url} → ${res.statusCode} ${res.body}`);
      const parsed = String(res.headers['content-type'] ?? '').includes('json') ? res.json() : null;
      if (res.statusCode >= 400 && (!parsed || !('detail' in parsed))) throw new Error(`${op.method} ${url} → ${res.statusCode} without detail`);
    }),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 400) },
  );
});
