import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode } from '../../src/roles/media.js';
import { startMetricsServer } from '../../src/metrics/server.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until } from '../media/client.js';
import { sample, scrape } from './scrape.js';

// The media role's metrics change as a real call runs through the real socket (echo pipeline).

const h = await startHarness();
t.teardown(h.close);
const metrics = await startMetricsServer(0, '127.0.0.1');
t.teardown(metrics.close);
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1' });
t.teardown(() => media.drain(0));
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 10 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1_000n * MINUTE_NANO);

const web = { direction: 'web' };

t.test('active sessions, frames, jitter, pacer lateness and call counts follow a call', async (t) => {
  const before = await scrape(metrics.port);
  t.equal(sample(before, 'voice_media_active_sessions', web), 0, 'no call yet');

  const a = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(a.ws_url, media.port));
  await c.opened;
  await until(() => media.sessions.size === 1);
  for (let i = 0; i < 50; i++) {
    c.ws.send(sine(16000, 20, 440, i * 320));
    await sleep(20);
  }
  await until(() => c.binary.length >= 45);
  const during = await scrape(metrics.port);
  t.equal(sample(during, 'voice_media_active_sessions', web), 1, 'one web call running');
  t.equal(sample(during, 'voice_media_calls_started_total', web) - sample(before, 'voice_media_calls_started_total', web), 1);
  const inDuring = sample(during, 'voice_media_frames_in_total', web) - sample(before, 'voice_media_frames_in_total', web);
  const outDuring = sample(during, 'voice_media_frames_out_total', web) - sample(before, 'voice_media_frames_out_total', web);
  t.ok(inDuring >= 45 && inDuring <= 50, `frames in counted live: ${inDuring}`);
  t.ok(outDuring >= c.binary.length, `frames out counted live: ${outDuring} ≥ ${c.binary.length} received`);
  const jitterCount = sample(during, 'voice_media_output_jitter_seconds_count') - sample(before, 'voice_media_output_jitter_seconds_count');
  t.ok(jitterCount >= outDuring - 2, `a jitter sample per frame after the first: ${jitterCount}`);
  t.ok(sample(during, 'voice_media_output_jitter_seconds_bucket', { le: '+Inf' }) === sample(during, 'voice_media_output_jitter_seconds_count'), 'histogram buckets end at the count');
  t.ok(sample(during, 'voice_media_pacer_lateness_seconds_count') > sample(before, 'voice_media_pacer_lateness_seconds_count'), 'the pacer ran and was timed');

  c.ws.send(JSON.stringify({ type: 'stop' }));
  await c.closed;
  await until(() => media.sessions.size === 0);
  await media.idle();
  const after = await scrape(metrics.port);
  t.equal(sample(after, 'voice_media_active_sessions', web), 0, 'the call is no longer active');
  t.equal(sample(after, 'voice_media_calls_ended_total', { direction: 'web', end_reason: 'caller_hangup' }) - sample(before, 'voice_media_calls_ended_total', { direction: 'web', end_reason: 'caller_hangup' }), 1);
  // Counters keep the ended call's frames: they never go down when a call leaves.
  t.ok(sample(after, 'voice_media_frames_in_total', web) >= sample(during, 'voice_media_frames_in_total', web), 'frames in kept after the call ended');
  t.ok(sample(after, 'voice_media_frames_out_total', web) >= sample(during, 'voice_media_frames_out_total', web), 'frames out kept after the call ended');
  const seconds = sample(after, 'voice_media_call_seconds_total', web) - sample(before, 'voice_media_call_seconds_total', web);
  t.ok(seconds >= 1 && seconds < 10, `call duration counted: ${seconds} s`);
  t.equal(sample(after, 'voice_media_dropped_frames_total', web), sample(before, 'voice_media_dropped_frames_total', web), 'a reading client drops nothing');
  t.notOk(after.includes(a.session.id), 'no session id in any label');
});

t.test('only GET /metrics answers on the metrics port', async (t) => {
  const other = await fetch(`http://127.0.0.1:${metrics.port}/healthz`);
  t.equal(other.status, 404);
  t.match(await other.json(), { detail: /metrics/ });
  t.equal((await fetch(`http://127.0.0.1:${metrics.port}/metrics`, { method: 'POST' })).status, 404);
  const text = await scrape(metrics.port);
  t.ok(sample(text, 'nodejs_eventloop_lag_p99_seconds') >= 0 && text.includes('nodejs_eventloop_lag_p99_seconds'), 'event-loop lag is exported');
});
