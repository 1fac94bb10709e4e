import t from 'tap';
import type { AddressInfo } from 'node:net';
import { startHarness } from '../helpers/harness.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import { sample, scrape } from './scrape.js';

// The api's request metrics, counted by route pattern and status over real HTTP.

const h = await startHarness();
t.teardown(h.close);
const metrics = await startMetricsServer(0, '127.0.0.1');
t.teardown(metrics.close);
await h.app.listen({ port: 0, host: '127.0.0.1' });
const api = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;

t.test('requests are counted and timed by route pattern, method and status', async (t) => {
  const id = '3f0c1d2e-4b5a-4c6d-8e7f-9a0b1c2d3e4f';
  const route = { method: 'GET', route: '/v2/voice/sessions/:session_id', status: '401' };
  const before = await scrape(metrics.port);
  for (let i = 0; i < 3; i++) t.equal((await fetch(`${api}/v2/voice/sessions/${id}`)).status, 401);
  t.equal((await fetch(`${api}/healthz`)).status, 200);
  t.equal((await fetch(`${api}/no/such/path/${id}`)).status, 404);
  const after = await scrape(metrics.port);
  const delta = (name: string, labels: Record<string, string>) => sample(after, name, labels) - sample(before, name, labels);
  t.equal(delta('voice_api_requests_total', route), 3, 'three 401s on the session route');
  t.equal(delta('voice_api_request_duration_seconds_count', route), 3, 'each one timed');
  t.ok(delta('voice_api_request_duration_seconds_sum', route) > 0, 'with a positive duration');
  t.equal(delta('voice_api_requests_total', { method: 'GET', route: '/healthz', status: '200' }), 1);
  t.equal(delta('voice_api_requests_total', { method: 'GET', route: 'unmatched', status: '404' }), 1, 'an unknown path is one bounded label');
  t.notOk(after.includes(id), 'no raw path or id in any label');
});
