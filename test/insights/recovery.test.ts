import t from 'tap';
import { Redis } from 'ioredis';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { activeSession, createAgentVersioned, TRANSCRIPT, waitFor } from '../transcripts/support.js';
import type { AppContext } from '../../src/shared/app-context.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { ManualClock } from '../../src/shared/clock.js';
import { endSession } from '../../src/sessions/settlement.js';
import { insightsQueue, startInsightsWorker, sweepInsightsOnce } from '../../src/insights/index.js';
import { start } from '../../src/roles/worker.js';

// The job is queued after the settlement commit; a crash (or Redis) can lose it. The pending
// mark written with the settlement lets the sweeper queue it again after a minute, and the
// session id as job id makes that collapse into a job that still exists.

const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
const h = await startHarness({ clock });
t.teardown(h.close);
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
await fund(h, tenant.projectId, 10_000n * MINUTE_NANO);
const stored = await createAgentVersioned(h, tenant.projectId, { storeTranscript: true, insightConfig: { summary: true } });
const unstored = await createAgentVersioned(h, tenant.projectId, { storeTranscript: false, insightConfig: { summary: true } });

const queue = insightsQueue(h.ctx);
const pending = async (id: string) => (await h.ctx.sql`select insights_pending_since from voice_sessions where id = ${id}`)[0].insights_pending_since as Date | null;
const insights = async (id: string) => (await h.ctx.sql`select insights from voice_sessions where id = ${id}`)[0].insights;
async function call(agentId: string, ctx: AppContext = h.ctx) {
  const id = await activeSession(h, tenant, agentId);
  await endSession(ctx, id, { outcome: 'completed', endReason: 'caller_hangup', transcript: TRANSCRIPT });
  return id;
}

t.test('the job carries the session id, and the transcript only when it was not stored', async (t) => {
  const a = await call(stored.agentId);
  const b = await call(unstored.agentId);
  t.same((await queue.getJob(a))!.data, { sessionId: a });
  t.same((await queue.getJob(b))!.data, { sessionId: b, transcript: TRANSCRIPT });
  t.same((await pending(a))?.getTime(), clock.now().getTime(), 'marked pending with the settlement');
  // Clean up for the next tests: these two are analysed by nobody here.
  await h.ctx.sql`update voice_sessions set insights_pending_since = null where id in ${h.ctx.sql([a, b])}`;
  await queue.obliterate({ force: true });
});

t.test('a crash between commit and enqueue: the sweeper queues the session again after a minute', async (t) => {
  // A context whose Redis is unreachable: the kick fails (logged) but settlement stands.
  const deadRedis = new Redis('redis://127.0.0.1:1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  deadRedis.on('error', () => {});
  t.teardown(() => deadRedis.disconnect());
  const id = await call(stored.agentId, { ...h.ctx, redis: deadRedis as never });
  t.ok(await pending(id), 'pending');
  t.equal(await queue.getJob(id), undefined, 'no job');

  clock.advance(59_000);
  t.same(await sweepInsightsOnce(h.ctx), { requeued: 0, failed: 0 }, 'not within the minute');
  clock.advance(2_000);
  t.same(await sweepInsightsOnce(h.ctx), { requeued: 1, failed: 0 });
  t.same((await queue.getJob(id))!.data, { sessionId: id });
  t.same(await sweepInsightsOnce(h.ctx), { requeued: 1, failed: 0 }, 'a second sweep re-adds the same job id');
  t.equal((await queue.getJobs(['waiting', 'delayed', 'active'])).length, 1, 'one job');

  const stop = await startInsightsWorker(h.ctx, { sweeper: false });
  t.teardown(stop);
  const info = await waitFor(() => insights(id));
  t.match(info, { status: 'completed', model: 'echo', summary: /^The caller first said/ });
  t.equal(await pending(id), null);
  t.same(await sweepInsightsOnce(h.ctx), { requeued: 0, failed: 0 }, 'nothing left to sweep');
  await stop();
});

t.test('a lost job whose transcript was not stored is recorded as failed; a queued one is left alone', async (t) => {
  const lost = await call(unstored.agentId);
  const queued = await call(unstored.agentId);
  await (await queue.getJob(lost))!.remove();
  clock.advance(61_000);
  t.same(await sweepInsightsOnce(h.ctx), { requeued: 0, failed: 1 });
  t.match(await insights(lost), { status: 'failed', summary: null, model: 'echo', error: 'transcript unavailable: it was not stored and its analysis job was lost' });
  t.equal(await insights(queued), null, 'its job still exists with the transcript');
  t.ok(await pending(queued));

  const stop = await startInsightsWorker(h.ctx, { sweeper: false });
  t.teardown(stop);
  t.match(await waitFor(() => insights(queued)), { status: 'completed', model: 'echo' });
  await stop();
});

t.test('a job that runs twice stores once', async (t) => {
  const id = await call(stored.agentId);
  const stop = await startInsightsWorker(h.ctx, { sweeper: false });
  t.teardown(stop);
  const first = await waitFor(() => insights(id));
  clock.advance(5_000);
  await queue.add('analyse', { sessionId: id }, { jobId: `${id}-again` });
  await new Promise((r) => setTimeout(r, 300));
  t.same(await insights(id), first, 'unchanged');
  await stop();
});

t.test('the worker role runs the insights worker and its sweeper', async (t) => {
  const id = await call(stored.agentId);
  await (await queue.getJob(id))!.remove();
  clock.advance(61_000);
  const stop = await start(h.ctx);
  t.teardown(stop);
  t.match(await waitFor(() => insights(id)), { status: 'completed', model: 'echo' });
});
