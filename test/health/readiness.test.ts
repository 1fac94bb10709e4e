import t from 'tap';
import { harnessOnOwnRedis } from '../helpers/own-redis.js';
import { startHealthServer } from '../../src/health/server.js';
import { markDraining } from '../../src/sessions/draining.js';
import { startMediaNode } from '../../src/roles/media.js';

// Readiness follows the services on the api, worker and media ports: /readyz answers 503 naming
// Redis while the test's own Redis is down and 200 again once it is back; draining makes it 503
// too. /healthz stays 200 throughout.

const { h, redis } = await harnessOnOwnRedis();
const worker = await startHealthServer(h.ctx, 0, '127.0.0.1');
t.teardown(worker.close);
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', pipeline: 'echo' });
t.teardown(() => media.drain(0));

const api = async (path: string) => {
  const res = await h.app.inject({ method: 'GET', url: path });
  return { status: res.statusCode, body: res.json() as { status?: string; detail?: string; checks: Record<string, string> } };
};
const onPort = (port: number) => async (path: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: res.status, body: (await res.json()) as { status?: string; detail?: string; checks: Record<string, string> } };
};
const workerPort = onPort(worker.port);
const mediaPort = onPort(media.port);
async function until<T>(probe: () => Promise<T>, ok: (v: T) => boolean, tries = 100): Promise<T> {
  let v = await probe();
  for (let i = 0; i < tries && !ok(v); i++) {
    await new Promise((r) => setTimeout(r, 100));
    v = await probe();
  }
  return v;
}

t.test('ready when Postgres, Redis and the schema answer', async (t) => {
  for (const probe of [api, workerPort, mediaPort]) {
    // The client may still be connecting right after start: not ready until it is.
    const r = await until(() => probe('/readyz'), (v) => v.status === 200);
    t.equal(r.status, 200);
    t.same(r.body, { status: 'ready', checks: { postgres: 'ok', redis: 'ok', migrations: 'ok', draining: 'ok' } });
    t.equal((await probe('/healthz')).status, 200);
  }
});

t.test('Redis down: 503 naming redis on both ports; back up: ready again', async (t) => {
  await redis.stop();
  for (const probe of [api, workerPort, mediaPort]) {
    const r = await until(() => probe('/readyz'), (v) => v.status === 503);
    t.equal(r.status, 503);
    t.not(r.body.checks.redis, 'ok');
    t.equal(r.body.checks.postgres, 'ok', 'Postgres is still fine');
    t.match(r.body.detail, /^not ready \(redis: /);
    t.equal((await probe('/healthz')).status, 200, 'liveness does not depend on Redis');
  }
  await redis.start();
  for (const probe of [api, workerPort, mediaPort]) {
    const r = await until(() => probe('/readyz'), (v) => v.status === 200);
    t.equal(r.status, 200, 'ready once Redis answers again');
  }
});

t.test('draining makes the process not ready', async (t) => {
  markDraining(h.ctx);
  const r = await api('/readyz');
  t.equal(r.status, 503);
  t.equal(r.body.checks.draining, 'draining');
  t.equal((await workerPort('/readyz')).status, 503);
  t.equal((await mediaPort('/readyz')).status, 503);
});

t.test('the media port answers other plain HTTP requests with a 404 in the error shape', async (t) => {
  const r = await mediaPort('/nope');
  t.equal(r.status, 404);
  t.same(r.body, { detail: 'route not found' });
});

t.test('the worker health port answers only its two routes', async (t) => {
  t.equal((await workerPort('/metrics-nope')).status, 404);
  const res = await fetch(`http://127.0.0.1:${worker.port}/readyz`, { method: 'POST' });
  t.equal(res.status, 405);
});
