import t from 'tap';
import { createServer } from 'node:net';
import { startHarness } from '../helpers/harness.js';
import { runRoles } from '../../src/roles/run.js';
import { sample, scrape } from './scrape.js';

// `npm start`'s wiring: one /metrics server per process on METRICS_PORT (METRICS_HOST), whatever
// roles the process runs, closed with them.

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

t.test('all three roles in one process share one metrics server on METRICS_PORT', async (t) => {
  const port = await freePort();
  const h = await startHarness({ env: { METRICS_PORT: String(port), METRICS_HOST: '127.0.0.1' } });
  t.teardown(h.close);
  const stop = await runRoles(h.ctx, ['api', 'media', 'worker']);
  let stopped = false;
  t.teardown(() => (stopped ? undefined : stop()));
  const text = await scrape(port);
  t.match(text, /# TYPE voice_api_requests_total counter/, 'api metrics');
  t.match(text, /voice_media_active_sessions\{direction="web"\} 0/, 'media metrics');
  t.match(text, /voice_queue_jobs\{queue="webhook-deliveries",state="waiting"\} \d+/, 'worker metrics');
  t.ok(text.includes('nodejs_eventloop_lag_seconds'), 'event-loop lag');
  t.ok(sample(text, 'process_cpu_user_seconds_total') > 0, 'process metrics');
  await stop();
  stopped = true;
  await t.rejects(fetch(`http://127.0.0.1:${port}/metrics`), 'the metrics server stops with the roles');
});
