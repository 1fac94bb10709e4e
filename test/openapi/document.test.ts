import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';

// /openapi.json is fit for generators (issue 17): operation ids, tags, named schemas, documented
// errors and headers; Redocly lints it clean; openapi-typescript turns it into types that a
// TypeScript file using the named schemas compiles against (and misuse of them does not).

const ROOT = new URL('../..', import.meta.url).pathname;
const h = await startHarness();
t.teardown(() => h.close());
const dir = mkdtempSync(join(tmpdir(), 'openapi-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

type Op = {
  operationId?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: { $ref?: string; name?: string }[];
  responses: Record<string, { $ref?: string; content?: Record<string, { schema: unknown }>; headers?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string } }> };
};
const res = await h.app.inject({ method: 'GET', url: '/openapi.json' });
const doc = res.json() as {
  paths: Record<string, Record<string, Op>>;
  components: { schemas: Record<string, unknown>; responses: Record<string, { content: Record<string, { schema: { $ref: string } }>; headers: Record<string, unknown> }> };
};
const file = join(dir, 'openapi.json');
writeFileSync(file, res.body);
const ops = Object.entries(doc.paths).flatMap(([path, byMethod]) => Object.entries(byMethod).map(([method, op]) => ({ path, method, op })));

const SPEC_NAMES = [
  'V2AgentInfo', 'V2AgentCreate', 'V2AgentUpdate', 'V2CreatedAgentResponse', 'V2AgentDeleted', 'VoiceSessionInfo',
  'CreateVoiceSessionRequest', 'CreateVoiceSessionResponse', 'CreateOutboundVoiceSessionRequest', 'CreateOutboundVoiceSessionResponse',
  'InsightConfigBody', 'CallInsightsInfo', 'WebhookEndpointInfo', 'CreatedWebhookEndpoint', 'CreateWebhookEndpointRequest',
  'WebhookTestResult', 'DeadLetterInfo', 'TranscriptInfo', 'TranscriptEntry', 'Error', 'ValidationError',
];

t.test('the spec names are component schemas, and bodies reference them', async (t) => {
  for (const name of SPEC_NAMES) t.ok(doc.components.schemas[name], name);
  const body = (path: string, method: string) => doc.paths[path][method].requestBody?.content['application/json'].schema.$ref;
  const ok = (path: string, method: string, status: string) => (doc.paths[path][method].responses[status].content?.['application/json'].schema as { $ref?: string }).$ref;
  t.equal(body('/v2/agents', 'post'), '#/components/schemas/V2AgentCreate');
  t.equal(body('/v2/agents/{agent_id}', 'patch'), '#/components/schemas/V2AgentUpdate');
  t.equal(ok('/v2/agents/{agent_id}', 'get', '200'), '#/components/schemas/V2AgentInfo');
  t.equal(body('/v2/voice/sessions', 'post'), '#/components/schemas/CreateVoiceSessionRequest');
  t.equal(ok('/v2/voice/sessions', 'post', '201'), '#/components/schemas/CreateVoiceSessionResponse');
  t.equal(ok('/v2/voice/sessions/outbound', 'post', '202'), '#/components/schemas/CreateOutboundVoiceSessionResponse');
  t.equal(ok('/v2/voice/sessions/{session_id}/transcript', 'get', '200'), '#/components/schemas/TranscriptInfo');
  t.equal(body('/v2/projects/{project_id}/webhooks', 'post'), '#/components/schemas/CreateWebhookEndpointRequest');
});

t.test('every operation: a unique camelCase operationId, a tag, its security and its documented errors', async (t) => {
  const ids = new Set<string>();
  for (const { path, method, op } of ops) {
    const name = `${method.toUpperCase()} ${path}`;
    t.match(op.operationId, /^[a-z][A-Za-z0-9]*$/, `${name} operationId`);
    t.notOk(ids.has(op.operationId!), `${op.operationId} is unique`);
    ids.add(op.operationId!);
    t.ok(op.tags?.length, `${name} tag`);
    t.ok(Array.isArray(op.security), `${name} security`);
    for (const [status, r] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      const target = doc.components.responses[r.$ref!.split('/').pop()!];
      t.match(target.content['application/json'].schema.$ref, status === '422' ? /ValidationError$/ : /\/Error$/, `${name} ${status}`);
    }
    if (path.startsWith('/v2/') && (op.security as Record<string, unknown>[]).some((s) => 'apiKey' in s)) {
      for (const status of ['401', '403', '429', '500']) t.ok(op.responses[status], `${name} documents ${status}`);
      const success = Object.entries(op.responses).find(([s]) => Number(s) < 300)![1];
      t.ok(success.headers?.['X-RateLimit-Remaining'], `${name} declares X-RateLimit-*`);
    }
  }
  t.ok(doc.components.responses.RateLimited.headers['Retry-After'], '429 declares Retry-After');
});

t.test('every creating POST of the machine door takes Idempotency-Key', async (t) => {
  const creating = ops.filter(({ path, method, op }) => path.startsWith('/v2/') && method === 'post' && op.responses['201'] && !path.startsWith('/v2/browser/'));
  t.ok(creating.length >= 3);
  for (const { path, op } of [...creating, ...ops.filter((o) => o.path === '/v2/voice/sessions/outbound')]) {
    t.ok(op.parameters?.some((p) => p.$ref === '#/components/parameters/IdempotencyKey'), `${path} declares Idempotency-Key`);
    const success = Object.entries(op.responses).find(([s]) => Number(s) < 300)![1];
    t.ok(success.headers?.['Idempotent-Replayed'], `${path} declares Idempotent-Replayed`);
  }
});

t.test('Redocly lint: no errors and no warnings (redocly.yaml turns off info-license: no licence chosen yet)', async (t) => {
  const run = spawnSync('npx', ['redocly', 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  const report = JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] };
  t.same(report.problems.map((p) => `${p.ruleId}: ${p.message}`), []);
  t.equal(report.totals.errors, 0);
  t.equal(report.totals.warnings, 0);
});

t.test('openapi-typescript generates types that code using the named schemas compiles against', async (t) => {
  const types = join(dir, 'api.d.ts');
  // Request fields with a default are optional to send: openapi-typescript must not make them required.
  const gen = spawnSync('npx', ['openapi-typescript', file, '-o', types, '--default-non-nullable=false'], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  t.equal(gen.status, 0, gen.stderr);
  const use = join(dir, 'use.ts');
  writeFileSync(
    use,
    `import type { components, operations } from './api.js';
type S = components['schemas'];
export function agentName(a: S['V2AgentInfo']): string { return a.name; }
export function sessionId(r: S['CreateVoiceSessionResponse']): string { return r.session.id; }
export function duplicate(r: S['CreateOutboundVoiceSessionResponse']): boolean { return r.duplicate; }
export function roles(t: S['TranscriptInfo']): ('user' | 'assistant' | 'tool')[] { return t.entries.map((e) => e.role); }
export function fields(e: S['ValidationError']): (string | number)[][] { return e.detail.map((d) => d.loc); }
export const create: S['V2AgentCreate'] = { name: 'a', prompt: 'p', pipeline_mode: 'cascade', pipeline_config: {} };
export const request: S['CreateVoiceSessionRequest'] = { agent_id: '00000000-0000-4000-8000-000000000000' };
export type CreateAgentBody = operations['createAgent']['requestBody'];
// @ts-expect-error: the generated types are real, not any
export const wrong: S['V2AgentInfo'] = { name: 1 };
// @ts-expect-error: an unknown role is refused
export const badRole: S['TranscriptEntry']['role'] = 'system';
`,
  );
  const tsc = spawnSync(
    'npx',
    ['tsc', '--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--skipLibCheck', use],
    { cwd: ROOT, encoding: 'utf8', timeout: 120_000 },
  );
  t.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
});
