import { createServer, type Server } from 'node:net';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { blockedReason, createSafeLookup, safeLookup, type Resolver } from '../../src/shared/net/address-policy.js';
import { webhookUrlProblem } from '../../src/contract/webhooks.js';
import { createSender } from '../../src/webhooks/sender.js';
import { emitCallEvent, kickDeliveries, startWebhookWorkers } from '../../src/webhooks/index.js';
import { newWebhookSecret } from '../../src/shared/crypto/tokens.js';
import { createEndpoint, insertAgent, ping, sessionDoc, waitForStatus } from './support.js';

// SSRF protection, with ALLOW_PRIVATE_URLS=0 (production): at create time and at delivery time.

t.test('address classification', async (t) => {
  const blocked = [
    '0.0.0.0', '0.1.2.3', '10.1.2.3', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254', '169.254.169.254',
    '172.16.0.1', '172.31.255.255', '192.0.0.8', '192.0.2.1', '192.88.99.1', '192.168.1.1', '198.18.0.1', '198.19.255.255',
    '198.51.100.7', '203.0.113.9', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255',
    '::', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:8.8.8.8', '::ffff:0:a00:1', '::127.0.0.1', '64:ff9b::808:808',
    '64:ff9b:1::1', '2002:7f00:1::1', '2002:808:808::1', '2001:db8::1', '2001:0:4136:e378::1', '100::1', 'fc00::1', 'fd12:3456::1',
    'fe80::1', 'fe80::1%eth0', 'fec0::1', 'ff02::1', '3fff::1', '[::1]', 'not-an-ip',
  ];
  for (const ip of blocked) t.ok(blockedReason(ip), `${ip} is blocked (${blockedReason(ip)})`);
  const allowed = [
    '8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.0', '172.15.255.255', '172.32.0.0', '192.0.1.1', '198.17.255.255',
    '198.20.0.0', '223.255.255.255', '2606:4700:4700::1111', '2a00:1450:4001::200e', '2001:4860:4860::8888', '[2606:4700::1]',
  ];
  for (const ip of allowed) t.equal(blockedReason(ip), null, `${ip} is public`);
  t.equal(blockedReason('::ffff:127.0.0.1'), 'IPv4-mapped');
  t.equal(blockedReason('64:ff9b::7f00:1'), 'NAT64');
  t.equal(blockedReason('2002:7f00:1::'), '6to4');
  t.equal(blockedReason('100.64.1.1'), 'carrier-grade NAT');
});

t.test('URL rules at create time without ALLOW_PRIVATE_URLS', async (t) => {
  const refused = [
    'http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://[::ffff:127.0.0.1]/x', 'https://[::ffff:7f00:1]/x',
    'https://2130706433/x', 'https://0x7f.0.0.1/x', 'https://127.1/x', 'https://localhost/x', 'https://LOCALHOST./x', 'https://api.localhost/x',
    'https://printer.local/x', 'https://metadata.google.internal/x', 'https://intranet/x', 'https://169.254.169.254/latest/meta-data',
    'https://10.0.0.1/x', 'https://[fd00::1]/x', 'https://[64:ff9b::a00:1]/x', 'https://user:pw@hooks.example.com/x',
  ];
  for (const url of refused) t.ok(webhookUrlProblem(url, false), `${url}: ${webhookUrlProblem(url, false)}`);
  for (const url of ['https://hooks.example.com/x', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]/x', 'https://hooks.example.com:8443/a?b=c']) {
    t.equal(webhookUrlProblem(url, false), null, url);
  }
  t.equal(webhookUrlProblem('http://127.0.0.1:9/x', true), null, 'development mode allows http and loopback');
});

t.test('safeLookup checks every resolved address and returns only checked ones', async (t) => {
  const call = (lookup: typeof safeLookup, host: string, opts: { all?: boolean }) =>
    new Promise<{ err: Error | null; address: unknown; family?: number }>((resolve) =>
      lookup(host, opts, (err, address, family) => resolve({ err, address, family })),
    );
  const real = await call(safeLookup, 'localhost', { all: true });
  t.match(real.err?.message, /localhost resolves to .*not allowed \(loopback\)/);

  const fake = (answers: Record<string, string[]>): Resolver => (host, cb) =>
    cb(null, (answers[host] ?? []).map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));
  const lookup = createSafeLookup(fake({ 'pub.example.test': ['93.184.216.34', '2606:2800:220:1::1'], 'mixed.example.test': ['93.184.216.34', '10.0.0.7'], 'mapped.example.test': ['::ffff:127.0.0.1'] }));
  const all = await call(lookup, 'pub.example.test', { all: true });
  t.same(all.address, [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }]);
  const one = await call(lookup, 'pub.example.test', {});
  t.same([one.address, one.family], ['93.184.216.34', 4]);
  t.match((await call(lookup, 'mixed.example.test', { all: true })).err?.message, /10\.0\.0\.7.*private/);
  t.match((await call(lookup, 'mapped.example.test', {})).err?.message, /IPv4-mapped/);
  t.match((await call(lookup, 'none.example.test', {})).err?.message, /no address/);
});

// A TCP server that only counts connections: proof that a refused destination is never contacted.
async function tcpCounter(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let n = 0;
  const server: Server = createServer((s) => {
    n++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, connections: () => n, close: () => new Promise((r) => server.close(() => r())) };
}

t.test('the sender refuses before connecting', async (t) => {
  const tcp = await tcpCounter();
  t.teardown(tcp.close);
  const sender = createSender({ allowPrivate: false, resolve: (_h, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]) });
  t.teardown(() => sender.close());
  const urls = [
    `https://hooks.example.test:${tcp.port}/hook`,
    `https://localhost:${tcp.port}/hook`,
    `https://[::ffff:127.0.0.1]:${tcp.port}/hook`,
    `https://127.0.0.1:${tcp.port}/hook`,
    `http://hooks.example.test:${tcp.port}/hook`,
  ];
  for (const url of urls) {
    const res = await sender.send({ url, headers: {}, body: '{}', timeoutMs: 2000 });
    t.same([res.ok, res.permanent], [false, true], url);
    t.match(res.error, /not allowed|not public|only https/, `${url}: ${res.error}`);
  }
  t.equal(tcp.connections(), 0);
});

t.test('end to end with ALLOW_PRIVATE_URLS=0', async (t) => {
  const h = await startHarness({ env: { ALLOW_PRIVATE_URLS: '0', WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100' } });
  const tcp = await tcpCounter();
  // hooks.example.test "resolves" to 127.0.0.1, as a hostile DNS record would.
  const stop = await startWebhookWorkers(h.ctx, {
    sweepIntervalMs: 100,
    overdueGraceMs: 500,
    resolve: (_host, cb) => cb(null, [{ address: '127.0.0.1', family: 4 }]),
  });
  t.teardown(async () => {
    await stop();
    await tcp.close();
    await h.close();
  });
  const tenant = await createTenant(h);

  for (const url of [`http://hooks.example.com/x`, `https://127.0.0.1:${tcp.port}/x`, `https://[::ffff:127.0.0.1]:${tcp.port}/x`, `https://localhost:${tcp.port}/x`]) {
    const res = await h.app.inject({ method: 'POST', url: `/v2/projects/${tenant.projectId}/webhooks`, headers: tenant.machine, payload: { name: 'x', url } });
    t.equal(res.statusCode, 422, url);
    t.same(res.json().detail[0].loc, ['body', 'url']);
  }

  // A public name at create time that resolves to loopback at delivery time.
  const ep = await createEndpoint(h, tenant, `https://hooks.example.test:${tcp.port}/hook`);
  const { delivery_id } = await ping(h, tenant, ep.id);
  const dead = await waitForStatus(h, delivery_id, 'dead');
  t.equal(dead.attempts, 1, 'a forbidden destination is not retried');
  t.match(dead.last_error, /hooks\.example\.test resolves to 127\.0\.0\.1, which is not allowed \(loopback\)/);

  // Rows that predate the rules (or an agent's own URL) are checked again at delivery.
  const legacy = [`https://[::ffff:127.0.0.1]:${tcp.port}/hook`, `https://localhost:${tcp.port}/hook`, `https://[::1]:${tcp.port}/hook`];
  const ids: string[] = [];
  for (const url of legacy) {
    const secret = newWebhookSecret();
    const id = crypto.randomUUID();
    await h.ctx.sql`
      insert into webhook_endpoints (id, project_id, name, url, secret_sealed, secret_hint)
      values (${id}, ${tenant.projectId}, 'legacy', ${url}, ${h.ctx.keyring.encrypt(secret, id)}, ${secret.slice(-4)})`;
    ids.push((await ping(h, tenant, id)).delivery_id);
  }
  for (const id of ids) t.match((await waitForStatus(h, id, 'dead')).last_error, /not allowed|not public/);

  const agent = await insertAgent(h, tenant.projectId, { webhookUrl: `https://[::ffff:127.0.0.1]:${tcp.port}/agent` });
  const e = await h.ctx.sql.begin((tx) =>
    emitCallEvent(tx, h.ctx, { projectId: tenant.projectId, agentId: agent.id, type: 'call.completed', session: sessionDoc(tenant.projectId, agent.id) }),
  );
  await kickDeliveries(h.ctx, e);
  const agentRow = await h.ctx.sql`select id from webhook_deliveries where event_id = ${e.eventId} and kind = 'agent'`;
  t.match((await waitForStatus(h, agentRow[0].id, 'dead')).last_error, /IPv4-mapped/);

  const letters = (await h.app.inject({ method: 'GET', url: `/v2/projects/${tenant.projectId}/webhooks/dead-letters`, headers: tenant.machine })).json();
  t.ok(letters.some((d: { id: string; kind: string; endpoint_id: string | null }) => d.id === agentRow[0].id && d.kind === 'agent' && d.endpoint_id === null));
  t.equal(tcp.connections(), 0, 'no connection ever reached the loopback listener');
});
