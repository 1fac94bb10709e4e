import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { startReceiver, verifyDelivery } from '../fakes/receiver.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { createEndpoint, ping, waitForStatus } from './support.js';

// A worker process killed while the receiver holds the request loses nothing: once its lease
// expires another worker delivers again, with the same webhook-id.

const schedule = '0,100,100,100';
const h = await startHarness({ env: { WEBHOOK_RETRY_SCHEDULE_MS: schedule } });
const keyringSpec = `t1:${randomBytes(32).toString('base64')}`;
h.ctx.keyring = Keyring.parse(keyringSpec); // shared with the child process
const tenant = await createTenant(h);
const rx = await startReceiver();
let stopWorker = async () => {};
t.teardown(async () => {
  await stopWorker();
  await rx.close();
  await h.close();
});

t.test('SIGKILL mid-delivery, then another worker delivers with the same id', async (t) => {
  rx.respond((_r, n) => (n === 1 ? { hang: true } : { status: 204 }));
  const ep = await createEndpoint(h, tenant, rx.url);

  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./worker-child.ts', import.meta.url))], {
    env: {
      ...process.env,
      DATABASE_URL: h.ctx.config.DATABASE_URL,
      REDIS_URL: h.ctx.config.REDIS_URL,
      KEYRING: keyringSpec,
      ALLOW_PRIVATE_URLS: '1',
      WEBHOOK_RETRY_SCHEDULE_MS: schedule,
      LOG_LEVEL: 'silent',
      CHILD_REDIS_PREFIX: h.ctx.redisPrefix,
      CHILD_LEASE_MS: '1500',
      CHILD_TIMEOUT_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.on('exit', () => reject(new Error('worker child exited before it was ready')));
  });

  const { delivery_id } = await ping(h, tenant, ep.id);
  const [first] = await rx.waitFor(1, 10_000);
  child.kill('SIGKILL');
  t.equal(await exited, 'SIGKILL');
  t.equal(first.id, delivery_id);
  const row = await h.ctx.sql`select status, attempts from webhook_deliveries where id = ${delivery_id}`;
  t.same([row[0].status, row[0].attempts], ['sending', 1], 'the killed attempt is still leased');

  stopWorker = await startWebhookWorkers(h.ctx, { concurrency: 2, sweepIntervalMs: 100, overdueGraceMs: 300 });
  const got = await rx.waitFor(2, 10_000);
  t.equal(got[1].id, delivery_id, 'the retry carries the same webhook-id');
  for (const r of got) t.equal(verifyDelivery(ep.signing_secret, r).type, 'webhook.ping');
  const done = await waitForStatus(h, delivery_id, 'delivered');
  t.equal(done.attempts, 2);
});
