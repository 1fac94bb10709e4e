import t from 'tap';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { Webhook } from 'standardwebhooks';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgentVersioned } from '../transcripts/support.js';
import type { AppContext } from '../../src/shared/app-context.js';
import { createLogger } from '../../src/shared/logger.js';
import { newWebhookSecret } from '../../src/shared/crypto/tokens.js';
import { callToolWebhook, TOOL_WEBHOOK_TIMEOUT_MS } from '../../src/tools/index.js';

// The tool webhook client against a real local HTTP server: Standard Webhooks signature with
// the agent secret, {result} back, and every failure as {ok: false, error}, never a throw.

const h = await startHarness();
const tenant = await createTenant(h);
const { agentId, secret } = await createAgentVersioned(h, tenant.projectId);
const sessionId = crypto.randomUUID();

interface Got {
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
}
type Answer = (res: ServerResponse, got: Got) => void;
const received: Got[] = [];
let answer: Answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"result":{"ok":true}}');
const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (c: Buffer) => parts.push(c));
  req.on('end', () => {
    const got = { headers: req.headers, body: Buffer.concat(parts).toString('utf8'), path: req.url ?? '/' };
    received.push(got);
    answer(res, got);
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const port = (server.address() as AddressInfo).port;
const url = `http://127.0.0.1:${port}/tools`;

// Everything this context logs, to check that no secret ever reaches the log.
const logLines: string[] = [];
const sink = new Writable({ write: (chunk, _enc, cb) => (logLines.push(String(chunk)), cb()) });
const ctx: AppContext = { ...h.ctx, log: createLogger('debug', 'test', sink) };

t.teardown(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
  await h.close();
});

const base = { projectId: tenant.projectId, agentId, sessionId, url, tool: 'lookup_order', arguments: { order_id: 'A-17', qty: 2 } };

t.test('a signed tool.call; the {result} comes back', async (t) => {
  answer = (res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ result: { status: 'shipped', eta_days: 2 } }));
  const before = received.length;
  const out = await callToolWebhook(ctx, base);
  t.same(out, { ok: true, result: { status: 'shipped', eta_days: 2 } });
  const got = received[before];
  t.equal(got.path, '/tools');
  t.equal(got.headers['content-type'], 'application/json');
  t.equal(got.headers['user-agent'], 'voice-agent-webhooks/1');
  t.match(got.headers['webhook-id'], /^[0-9a-f-]{36}$/);
  const event = new Webhook(secret).verify(got.body, {
    'webhook-id': String(got.headers['webhook-id']),
    'webhook-timestamp': String(got.headers['webhook-timestamp']),
    'webhook-signature': String(got.headers['webhook-signature']),
  }) as Record<string, unknown>;
  t.same(Object.keys(JSON.parse(got.body)), ['type', 'timestamp', 'data']);
  t.match(event, { type: 'tool.call', data: { session_id: sessionId, tool: 'lookup_order', arguments: { order_id: 'A-17', qty: 2 } } });
  t.ok(!Number.isNaN(Date.parse(event.timestamp as string)));
  t.throws(() => new Webhook(newWebhookSecret()).verify(got.body, got.headers as Record<string, string>), 'another secret does not verify');

  await callToolWebhook(ctx, base);
  t.not(received[before + 1].headers['webhook-id'], got.headers['webhook-id'], 'a fresh webhook-id per call');
  t.same((await callToolWebhook(ctx, { ...base, arguments: undefined })).ok, true);
  t.equal(JSON.parse(received[received.length - 1].body).data.arguments, null, 'absent arguments are null');
});

t.test('a rotated secret signs the next call', async (t) => {
  const next = newWebhookSecret();
  await h.ctx.sql`update agents set webhook_secret_sealed = ${h.ctx.keyring.encrypt(next, agentId)} where id = ${agentId}`;
  t.teardown(() => h.ctx.sql`update agents set webhook_secret_sealed = ${h.ctx.keyring.encrypt(secret, agentId)} where id = ${agentId}`);
  answer = (res) => res.writeHead(200).end('{"result":"x"}');
  t.same(await callToolWebhook(ctx, base), { ok: true, result: 'x' });
  const got = received[received.length - 1];
  const headers = got.headers as Record<string, string>;
  t.doesNotThrow(() => new Webhook(next).verify(got.body, headers));
  t.throws(() => new Webhook(secret).verify(got.body, headers));
});

t.test('answers that are not a result', async (t) => {
  const cases: [Answer, string | RegExp][] = [
    [(res) => res.writeHead(500).end('{"result":1}'), 'HTTP 500'],
    [(res) => res.writeHead(404).end(), 'HTTP 404'],
    [(res) => res.writeHead(200).end('not json'), 'invalid JSON'],
    [(res) => res.writeHead(200).end(''), 'invalid JSON'],
    [(res) => res.writeHead(200).end('{"answer": 1}'), 'invalid response (expected {"result": ...})'],
    [(res) => res.writeHead(200).end('[1]'), 'invalid response (expected {"result": ...})'],
    [(res) => res.writeHead(200).end(JSON.stringify({ result: 'x'.repeat(70 * 1024) })), 'response larger than 65536 bytes'],
  ];
  for (const [a, error] of cases) {
    answer = a;
    const out = await callToolWebhook(ctx, base);
    t.equal(out.ok, false);
    if (!out.ok) t.match(out.error, error);
  }
  answer = (res) => res.writeHead(200).end('{"result": null}');
  t.same(await callToolWebhook(ctx, base), { ok: true, result: null }, 'a null result is a result');
});

t.test('redirects are not followed', async (t) => {
  answer = (res, got) => (got.path === '/tools' ? res.writeHead(302, { location: `http://127.0.0.1:${port}/elsewhere` }).end() : res.writeHead(200).end('{"result":"moved"}'));
  const before = received.length;
  t.same(await callToolWebhook(ctx, base), { ok: false, error: 'HTTP 302 (redirects are not followed)' });
  await new Promise((r) => setTimeout(r, 50));
  t.same(received.slice(before).map((g) => g.path), ['/tools'], 'only the first request');
});

t.test('a receiver that never answers times out (5 s by default)', async (t) => {
  t.equal(TOOL_WEBHOOK_TIMEOUT_MS, 5_000);
  answer = () => {};
  let started = Date.now();
  t.same(await callToolWebhook(ctx, base, { timeoutMs: 250 }), { ok: false, error: 'timeout after 250 ms' });
  t.ok(Date.now() - started < 2_000, 'promptly');
  answer = (res) => {
    res.writeHead(200);
    res.write('{"result": "par');
  };
  started = Date.now();
  t.same(await callToolWebhook(ctx, base, { timeoutMs: 250 }), { ok: false, error: 'timeout after 250 ms' }, 'a body that never ends too');
  t.ok(Date.now() - started < 2_000);
});

t.test('the caller can cancel', async (t) => {
  answer = () => {};
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 50);
  t.same(await callToolWebhook(ctx, { ...base, signal: ac.signal }), { ok: false, error: 'cancelled' });
  t.same(await callToolWebhook(ctx, { ...base, signal: AbortSignal.abort() }), { ok: false, error: 'cancelled' });
});

t.test('connection failures and unknown agents', async (t) => {
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const deadPort = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  t.same(await callToolWebhook(ctx, { ...base, url: `http://127.0.0.1:${deadPort}/x` }), { ok: false, error: 'connection failed (ECONNREFUSED)' });
  t.same(await callToolWebhook(ctx, { ...base, agentId: crypto.randomUUID() }), { ok: false, error: 'agent not found' });
  const other = await createTenant(h);
  t.same(await callToolWebhook(ctx, { ...base, projectId: other.projectId }), { ok: false, error: 'agent not found' }, "another project's agent");
  t.same(await callToolWebhook(ctx, { ...base, url: 'not a url' }), { ok: false, error: 'invalid URL' });
  t.same(await callToolWebhook(ctx, { ...base, url: 'ftp://127.0.0.1/x' }), { ok: false, error: 'blocked destination (only http(s) URLs are called)' });
});

t.test('with ALLOW_PRIVATE_URLS=0 only public addresses are called', async (t) => {
  const strict: AppContext = { ...ctx, config: { ...ctx.config, ALLOW_PRIVATE_URLS: false } };
  const before = received.length;
  const cases: [string, RegExp][] = [
    [url, /^blocked destination \(only https URLs are delivered to\)$/],
    [`https://127.0.0.1:${port}/tools`, /^blocked destination \(destination address 127\.0\.0\.1 is not allowed \(loopback\)\)$/],
    ['https://[::1]/tools', /^blocked destination \(.*loopback/],
    ['https://10.1.2.3/tools', /^blocked destination \(.*private/],
    ['https://localhost/tools', /^blocked destination \(host localhost is not public\)$/],
  ];
  for (const [u, error] of cases) {
    const out = await callToolWebhook(strict, { ...base, url: u });
    t.equal(out.ok, false, u);
    if (!out.ok) t.match(out.error, error, u);
  }
  // A public-looking name that resolves to a private address is refused at connect time.
  const resolve = (_host: string, cb: (err: NodeJS.ErrnoException | null, a: { address: string; family: number }[]) => void) =>
    cb(null, [{ address: '192.168.1.20', family: 4 }]);
  const out = await callToolWebhook(strict, { ...base, url: 'https://tools.example.com/hook' }, { resolve, timeoutMs: 2_000 });
  t.same(out, { ok: false, error: 'blocked destination (tools.example.com resolves to 192.168.1.20, which is not allowed (private))' });
  t.equal(received.length, before, 'nothing was sent');
});

t.test('the secret never reaches the log', async (t) => {
  t.ok(logLines.some((l) => l.includes('tool webhook call failed')), 'failures were logged');
  const key = secret.slice('whsec_'.length);
  t.notOk(logLines.some((l) => l.includes(key)), 'no secret');
  t.notOk(logLines.some((l) => l.includes('A-17')), 'no arguments');
});
