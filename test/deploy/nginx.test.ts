import t from 'tap';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import WebSocket from 'ws';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { sine, sleep, until } from '../media/client.js';
import { startMediaNode } from '../../src/roles/media.js';
import { startHealthServer } from '../../src/health/server.js';
import { findNginx, freePort, selfSignedCertificate, startNginx, type RunningNginx } from './nginx-helpers.js';

// deploy/nginx.conf in front of the real service: Debian's nginx (a child process on free ports,
// a self-signed certificate) proxies to the api (buildApp + listen) and the media socket
// (startMediaNode, echo pipeline). A call is placed through it end to end.

const nginxBin = findNginx();
if (!nginxBin) {
  t.fail('nginx is not installed: this test runs deploy/nginx.conf on Debian\'s nginx. Install it with `apt-get install -y nginx` (.ci/run does).');
} else {
  // A failure to set up (nginx -t, nginx exiting) fails the file with nginx's own words; the
  // teardowns registered so far still run.
  await run(nginxBin).catch((err: unknown) => t.fail(err instanceof Error ? err.message : String(err)));
}

async function run(bin: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'voice-nginx-'));
  // nginx's workers drop root's privileges (to nobody) and must reach the temp files in here.
  chmodSync(dir, 0o755);
  const { cert, key } = selfSignedCertificate(dir);
  const ca = readFileSync(cert);
  const httpsPort = await freePort();
  const httpPort = await freePort();
  const origin = `https://127.0.0.1:${httpsPort}`;

  // The service as deployed behind the proxy: public URLs on nginx, nginx (127.0.0.1) trusted.
  const h = await startHarness({
    env: { PUBLIC_BASE_URL: origin, PUBLIC_MEDIA_URL: `wss://127.0.0.1:${httpsPort}`, TRUST_PROXY: '127.0.0.1' },
  });
  // What reaches the api, as nginx forwarded it.
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  h.app.server.on('request', (req) => seen.push({ url: req.url ?? '', headers: req.headers }));
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const apiPort = (h.app.server.address() as AddressInfo).port;
  const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', pipeline: 'echo' });

  let nginx: RunningNginx | undefined;
  t.teardown(async () => {
    await nginx?.stop();
    await media.drain(0);
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });
  nginx = await startNginx(bin, dir, {
    PUBLIC_HOST: '127.0.0.1',
    PUBLIC_BASE_URL: origin,
    HTTPS_PORT: httpsPort,
    HTTP_PORT: httpPort,
    TLS_CERT: cert,
    TLS_KEY: key,
    API_UPSTREAM: `127.0.0.1:${apiPort}`,
    MEDIA_UPSTREAM: `127.0.0.1:${media.port}`,
  });
  const proxy = nginx;

  // The client comes from 127.0.0.2 (still loopback), so its address differs from nginx's.
  const client = new Agent({ localAddress: '127.0.0.2', connect: { ca } });
  t.teardown(() => client.close());
  const get = (path: string, init: Parameters<typeof fetch>[1] = {}) => fetch(`${origin}${path}`, { dispatcher: client, ...init });

  // nginx is up when it answers over TLS.
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (proxy.exited()) throw new Error(`nginx exited: ${proxy.output()}`);
    const ok = await get('/healthz').then((r) => r.ok, () => false);
    if (ok) break;
    if (Date.now() > deadline) throw new Error(`nginx did not answer on ${origin}: ${proxy.output()}`);
    await sleep(50);
  }

  t.test('/readyz and the console routes answer through nginx over TLS', async (t) => {
    const ready = await get('/readyz');
    t.equal(ready.status, 200);
    t.match(await ready.json(), { status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', draining: 'ok' } });
    const openapi = await get('/openapi.json');
    t.equal(openapi.status, 200);
    const doc = (await openapi.json()) as { servers?: { url: string }[] };
    t.same(doc.servers?.[0]?.url, origin, 'the reference names the public https URL');
    t.equal((await get('/docs')).status, 200, '/docs');
    const unauth = await get('/v2/providers/catalogue');
    t.equal(unauth.status, 401, '/v2 reaches the api');
    t.match(await unauth.json(), { detail: String });
    t.equal((await get('/console/v2/projects')).status, 401, '/console reaches the api');
  });

  t.test('the WebSocket paths go to media, everything else to the api', async (t) => {
    const id = '3c5ba219-50d5-46f8-a1ea-c788a45de813';
    const routes: [string, number][] = [
      [`/v2/voice/sessions/${id}/stream`, media.port],
      ['/v2/carriers/twilio/stream', media.port],
      [`/v2/voice/sessions/${id}`, apiPort],
      [`/v2/voice/sessions/${id}/stream/x`, apiPort],
      ['/v2/carriers/twilio/c1/status', apiPort],
      ['/console/auth/login', apiPort],
      ['/docs', apiPort],
      ['/openapi.json', apiPort],
      ['/', apiPort],
    ];
    for (const [path] of routes) await (await get(path)).arrayBuffer();
    const log = readFileSync(proxy.accessLog, 'utf8').split('\n');
    for (const [path, port] of routes) {
      const line = [...log].reverse().find((l) => l.startsWith(`GET ${path} `));
      t.match(line, new RegExp(` 127\\.0\\.0\\.1:${port}$`), `${path} → ${port === media.port ? 'media' : 'api'}`);
    }
  });

  t.test('plain HTTP is redirected to PUBLIC_BASE_URL', async (t) => {
    const res = await fetch(`http://127.0.0.1:${httpPort}/readyz?x=1`, { redirect: 'manual' });
    t.equal(res.status, 301);
    t.equal(res.headers.get('location'), `${origin}/readyz?x=1`);
  });

  t.test('the api sees the client address from X-Forwarded-For (TRUST_PROXY=127.0.0.1)', async (t) => {
    // The client claims another address; nginx replaces X-Forwarded-For with the real one.
    const res = await get('/console/auth/signup', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.9' },
      body: JSON.stringify({ email: 'proxy-client@example.com', password: 'a long enough password' }),
    });
    t.equal(res.status, 201, res.status === 201 ? 'signed up' : await res.text());
    const forwarded = seen.find((r) => r.url === '/console/auth/signup');
    t.ok(forwarded, 'the request reached the api');
    t.equal(forwarded?.headers['x-forwarded-for'], '127.0.0.2');
    t.equal(forwarded?.headers['x-forwarded-proto'], 'https');
    t.equal(forwarded?.headers['x-forwarded-host'], `127.0.0.1:${httpsPort}`);
    t.equal(forwarded?.headers.host, `127.0.0.1:${httpsPort}`);
    // The per-address sign-up limit counted the client (not nginx's 127.0.0.1, not the claimed one).
    const keys = await h.ctx.redis.keys(`${h.ctx.redisPrefix}*signup*`);
    t.ok(keys.some((k) => k.endsWith(':127.0.0.2')), `sign-up counted for 127.0.0.2: ${keys.join(', ')}`);
    t.notOk(keys.some((k) => k.endsWith(':127.0.0.1') || k.includes('203.0.113.9')), 'neither nginx nor the claimed address is counted');
  });

  t.test('a call through nginx: wss:// ws_url, echoed audio, stop, session_ended, 1000', async (t) => {
    const tenant = await createTenant(h);
    const agent = await createAgent(h, tenant.projectId);
    await fund(h, tenant.projectId, 100n * MINUTE_NANO);
    const res = await get('/v2/voice/sessions', {
      method: 'POST',
      headers: { ...tenant.machine, 'content-type': 'application/json' },
      body: JSON.stringify({ agent_id: agent.agentId, sample_rate_in: 16000, sample_rate_out: 24000 }),
    });
    const body = await res.text();
    t.equal(res.status, 201, res.status === 201 ? 'admitted' : body);
    const created = JSON.parse(body) as { session: { id: string }; ws_url: string };
    t.match(created.ws_url, new RegExp(`^wss://127\\.0\\.0\\.1:${httpsPort}/v2/voice/sessions/${created.session.id}/stream\\?token=`), 'ws_url points at nginx');

    const ws = new WebSocket(created.ws_url, { ca, localAddress: '127.0.0.2' });
    const binary: Buffer[] = [];
    const text: Record<string, unknown>[] = [];
    ws.on('message', (data, isBinary) => (isBinary ? binary.push(data as Buffer) : text.push(JSON.parse(data.toString()))));
    const closed = new Promise<{ code: number }>((resolve) => ws.once('close', (code) => resolve({ code })));
    ws.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    for (let i = 0; i < 50; i++) {
      ws.send(sine(16000, 20, 440, i * 320));
      await sleep(20);
    }
    await until(() => binary.length >= 45, 3000);
    t.ok(binary.every((f) => f.length === 960), '20 ms of 24 kHz PCM16 per frame');
    const mid = binary[Math.floor(binary.length / 2)];
    let energy = 0;
    for (let i = 0; i < mid.length; i += 2) energy += Math.abs(mid.readInt16LE(i));
    t.ok(energy / 480 > 1000, 'the echoed audio has signal');

    ws.send(JSON.stringify({ type: 'stop' }));
    t.equal((await closed).code, 1000);
    t.same(text.at(-1), { type: 'session_ended', reason: 'caller_hangup' });
    await media.idle();
    await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${created.session.id}`)[0].status === 'completed');
    const [row] = await h.ctx.sql`select status, end_reason from voice_sessions where id = ${created.session.id}`;
    t.same({ ...row }, { status: 'completed', end_reason: 'caller_hangup' });
    const access = readFileSync(proxy.accessLog, 'utf8');
    t.match(access, new RegExp(`^GET /v2/voice/sessions/${created.session.id}/stream\\?token=\\S+ 101 127\\.0\\.0\\.1:${media.port}$`, 'm'), 'nginx upgraded the socket (101) to the media upstream');
  });

  t.test('deploy/healthcheck.mjs: /readyz of every role in ROLES', async (t) => {
    const worker = await startHealthServer(h.ctx, 0, '127.0.0.1');
    t.teardown(() => worker.close());
    const closedPort = await freePort();
    const script = fileURLToPath(new URL('../../deploy/healthcheck.mjs', import.meta.url));
    const check = (env: Record<string, string>) =>
      new Promise<{ code: number | null; out: string }>((resolve) => {
        const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (out += d.toString()));
        child.once('exit', (code) => resolve({ code, out }));
      });
    const ports = { PORT: String(apiPort), MEDIA_PORT: String(media.port), WORKER_HTTP_PORT: String(worker.port) };
    t.match(await check({ ...ports, HOST: '127.0.0.1', ROLES: 'api,media,worker' }), { code: 0, out: /ready: api,media,worker/ });
    t.match(await check({ ...ports, HOST: '0.0.0.0', ROLES: 'media' }), { code: 0 }, 'a wildcard HOST is probed on loopback');
    const down = await check({ ...ports, WORKER_HTTP_PORT: String(closedPort), HOST: '127.0.0.1', ROLES: 'api,worker' });
    t.equal(down.code, 1);
    t.match(down.out, /not ready: worker http:\/\/127\.0\.0\.1:\d+\/readyz: ECONNREFUSED/);
  });
}
