import t from 'tap';
import { backoffMs, ConnectionError, DEFAULT_RETRY, RateLimitError, ServerError, TimeoutError, VoiceClient, toArray } from '../../packages/sdk/src/index.js';
import { startFaultProxy } from './fault-proxy.js';
import { fundedTenant, localAgentBody, startService } from './service.js';

// The retry rules of spec §7 through a fault-injecting proxy in front of the real service:
// only 429, 502 and 503 are retried; Retry-After is honoured; a POST is retried only with an
// idempotency key; maxRetries bounds the attempts; timeouts and AbortSignal end a request.

const svc = await startService();
const proxy = await startFaultProxy(svc.baseUrl);
t.teardown(async () => {
  await proxy.close();
  await svc.close();
});
const tenant = await fundedTenant(svc.h);
// Short backoff so the test does not wait seconds for jitter it does not judge.
const client = new VoiceClient({ apiKey: tenant.apiKey, baseUrl: proxy.url, retry: { baseDelayMs: 20, maxDelayMs: 100 } });
const agentsInDb = async () => Number((await svc.h.ctx.sql`select count(*)::int as n from agents where project_id = ${tenant.projectId}`)[0].n);
const attempts = (from: number) => proxy.seen.slice(from);

t.test('full jitter stays within [0, min(cap, base·2^n)] and never under Retry-After', async (t) => {
  const policy = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 1000 };
  t.equal(backoffMs(policy, 0, null, () => 0.999999), 99.9999);
  t.equal(backoffMs(policy, 3, null, () => 0.5), 400);
  t.equal(backoffMs(policy, 10, null, () => 1), 1000, 'capped');
  t.equal(backoffMs(policy, 0, null, () => 0), 0, 'full jitter reaches 0');
  t.equal(backoffMs(policy, 0, 2, () => 0.5), 2000, 'Retry-After wins when longer');
  t.equal(backoffMs(policy, 10, 0.1, () => 1), 1000, 'jitter wins when longer');
});

t.test('GET: 503 and 502 are retried until it succeeds', async (t) => {
  const from = proxy.seen.length;
  proxy.script({ status: 503 }, { status: 502 });
  t.same(await toArray(client.agents.list()), []);
  t.same(attempts(from).map((s) => s.outcome), ['fault', 'fault', 'forwarded']);
});

t.test('429 waits Retry-After seconds before the next attempt', async (t) => {
  const from = proxy.seen.length;
  proxy.script({ status: 429, retryAfter: '1' });
  await client.catalogue();
  const [first, second] = attempts(from);
  t.ok(second.atMs - first.atMs >= 990, `second attempt ${Math.round(second.atMs - first.atMs)} ms after the first`);
});

t.test('maxRetries bounds the attempts; the last error is typed', async (t) => {
  const from = proxy.seen.length;
  proxy.script({ status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
  const err = await client.catalogue().catch((e: unknown) => e);
  t.ok(err instanceof ServerError);
  t.equal((err as ServerError).status, 503);
  t.equal((err as ServerError).requestId, 'proxy-fault');
  t.equal(attempts(from).length, 1 + DEFAULT_RETRY.maxRetries, 'first attempt + maxRetries');

  const from2 = proxy.seen.length;
  proxy.script({ status: 429, retryAfter: '0' });
  const none = await client.catalogue({ maxRetries: 0 }).catch((e: unknown) => e);
  t.ok(none instanceof RateLimitError);
  t.equal((none as RateLimitError).retryAfter, 0);
  t.equal(attempts(from2).length, 1, 'maxRetries 0: one attempt');
  proxy.script();
});

t.test('other statuses are never retried', async (t) => {
  for (const status of [500, 504, 404, 409]) {
    const from = proxy.seen.length;
    proxy.script({ status });
    const err = await client.catalogue().catch((e: unknown) => e);
    t.equal((err as { status: number }).status, status);
    t.equal(attempts(from).length, 1, `${status}: one attempt`);
  }
  proxy.script();
});

t.test('POST without an idempotency key is not retried, even on 503', async (t) => {
  const from = proxy.seen.length;
  proxy.script({ status: 503 });
  const err = await client.agents.create(localAgentBody(tenant.localAccountId)).catch((e: unknown) => e);
  t.ok(err instanceof ServerError);
  t.equal(attempts(from).length, 1);
  t.notOk(attempts(from)[0].headers['idempotency-key'], 'no key was sent');
  proxy.script();
});

t.test('POST with an idempotency key is retried after 503 and a lost answer, with one effect', async (t) => {
  const before = await agentsInDb();
  const from = proxy.seen.length;
  // 503, then the request reaches the service but its answer is lost, then the repeat.
  proxy.script({ status: 503 }, { dropAfterForward: true });
  const created = await client.agents.create(localAgentBody(tenant.localAccountId), { idempotencyKey: true });
  const keys = attempts(from).map((s) => s.headers['idempotency-key']);
  t.equal(keys.length, 3);
  t.ok(keys[0] && keys.every((k) => k === keys[0]), 'one generated key on every attempt');
  t.ok(created.agent.id);
  // Contract §11: the repeat is answered with the first response, so only one agent exists.
  t.equal(await agentsInDb(), before + 1, 'one agent created');
});

t.test('dropped connections: GET retried, POST without key is a ConnectionError after one attempt', async (t) => {
  const from = proxy.seen.length;
  proxy.script({ drop: true });
  t.ok(Array.isArray(await client.catalogue()));
  t.equal(attempts(from).length, 2);

  const from2 = proxy.seen.length;
  proxy.script({ drop: true });
  const err = await client.agents.create(localAgentBody(tenant.localAccountId)).catch((e: unknown) => e);
  t.ok(err instanceof ConnectionError, String(err));
  t.equal(attempts(from2).length, 1);
  proxy.script();
});

t.test('timeouts and AbortSignal', async (t) => {
  const from = proxy.seen.length;
  proxy.script({ delayMs: 1500 }, { delayMs: 1500 }, { delayMs: 1500 });
  const err = await client.catalogue({ timeoutMs: 200 }).catch((e: unknown) => e);
  t.ok(err instanceof TimeoutError, String(err));
  t.equal(attempts(from).length, 3, 'a timed-out GET is retried like a lost answer');

  proxy.script({ delayMs: 1500 });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('caller gave up')), 100);
  const aborted = await client.catalogue({ signal: controller.signal }).catch((e: unknown) => e);
  t.equal((aborted as Error).message, 'caller gave up', 'the signal reason, no retry');

  // An abort during the backoff wait ends the request too.
  proxy.script({ status: 503, retryAfter: '5' });
  const c2 = new AbortController();
  setTimeout(() => c2.abort(new Error('stop waiting')), 200);
  const during = await client.catalogue({ signal: c2.signal }).catch((e: unknown) => e);
  t.equal((during as Error).message, 'stop waiting');
  proxy.script();
});
