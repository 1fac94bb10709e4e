import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import { start as startWorkerRole } from '../../src/roles/worker.js';
import { createEndpoint, ping, receiverPool, waitForStatus } from '../webhooks/support.js';
import { insightsJobs, producerQueue } from '../../src/queues/index.js';
import { sample, scrape } from './scrape.js';

// The worker role's metrics: webhook attempts by outcome, and the queues' depths read from
// Redis at scrape time.

// Two attempts per delivery, 50 ms apart, so a failing endpoint dead-letters within the test.
const h = await startHarness({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,50' } });
t.teardown(h.close);
const pool = receiverPool();
t.teardown(pool.closeAll);
const metrics = await startMetricsServer(0, '127.0.0.1');
t.teardown(metrics.close);
const tenant = await createTenant(h);
const stopWorker = await startWorkerRole(h.ctx);
t.teardown(stopWorker);

t.test('a delivered webhook counts one delivered attempt; queue depths are exported', async (t) => {
  const receiver = await pool.receiver();
  const endpoint = await createEndpoint(h, tenant, receiver.url);
  const before = await scrape(metrics.port);
  const { delivery_id } = await ping(h, tenant, endpoint.id);
  await waitForStatus(h, delivery_id, 'delivered');
  let after = await scrape(metrics.port);
  // The counter moves right after the row is written: give it a moment.
  for (let i = 0; i < 40 && sample(after, 'voice_webhook_attempts_total', { outcome: 'delivered' }) === sample(before, 'voice_webhook_attempts_total', { outcome: 'delivered' }); i++) {
    await new Promise((r) => setTimeout(r, 25));
    after = await scrape(metrics.port);
  }
  t.equal(sample(after, 'voice_webhook_attempts_total', { outcome: 'delivered' }) - sample(before, 'voice_webhook_attempts_total', { outcome: 'delivered' }), 1, 'one delivered attempt');
  t.equal(sample(after, 'voice_webhook_dead_letters_total'), sample(before, 'voice_webhook_dead_letters_total'), 'no dead letter');
  t.ok(sample(after, 'voice_queue_jobs_processed_total', { queue: 'webhook-deliveries', result: 'completed' }) >= 1, 'the job is counted as completed');
  for (const queue of ['webhook-deliveries', 'session-insights', 'outbound-dials']) {
    t.match(after, new RegExp(`voice_queue_jobs\\{queue="${queue}",state="waiting"\\} \\d+`), `${queue} depth exported`);
  }
});

t.test('queued jobs show in the depth gauge while the worker runs', async (t) => {
  // A delayed job stays put, so the scrape sees it.
  const q = producerQueue(h.ctx, insightsJobs);
  const before = sample(await scrape(metrics.port), 'voice_queue_jobs', { queue: 'session-insights', state: 'delayed' });
  await q.add(insightsJobs.job, { sessionId: '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f' }, { delay: 60_000, jobId: 'metrics-test-delayed' });
  const after = sample(await scrape(metrics.port), 'voice_queue_jobs', { queue: 'session-insights', state: 'delayed' });
  t.equal(after - before, 1, 'one more delayed job');
  await q.remove('metrics-test-delayed');
});

t.test('a failing endpoint counts a retry, then a dead attempt and a dead letter', async (t) => {
  const receiver = await pool.receiver();
  receiver.respond(() => ({ status: 500 }));
  const endpoint = await createEndpoint(h, tenant, receiver.url);
  const before = await scrape(metrics.port);
  const { delivery_id } = await ping(h, tenant, endpoint.id);
  await waitForStatus(h, delivery_id, 'dead');
  const delta = async (name: string, labels: Record<string, string> = {}) => sample(await scrape(metrics.port), name, labels) - sample(before, name, labels);
  for (let i = 0; i < 40 && (await delta('voice_webhook_dead_letters_total')) === 0; i++) await new Promise((r) => setTimeout(r, 25));
  t.equal(await delta('voice_webhook_attempts_total', { outcome: 'retry' }), 1, 'the first attempt is retried');
  t.equal(await delta('voice_webhook_attempts_total', { outcome: 'dead' }), 1, 'the last one is dead');
  t.equal(await delta('voice_webhook_dead_letters_total'), 1, 'one dead letter');
  t.equal(await delta('voice_webhook_attempts_total', { outcome: 'delivered' }), 0);
});
