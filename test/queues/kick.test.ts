import t from 'tap';
import { Redis, type RedisOptions } from 'ioredis';
import { startHarness } from '../helpers/harness.js';
import type { AppContext } from '../../src/shared/app-context.js';
import { createLogger } from '../../src/shared/logger.js';
import { addWithinTimeout } from '../../src/queues/index.js';
import { deliveryQueue, kickDeliveries } from '../../src/webhooks/index.js';
import { insightsQueue, kickInsights } from '../../src/insights/index.js';
import { dialQueue, kickDial } from '../../src/telephony/dial-queue.js';

// A kick runs after the commit that recorded the work: whatever Redis does, it returns within
// its timeout and never throws; what it could not queue, a sweeper queues from Postgres.

const h = await startHarness({ app: false });
t.teardown(h.close);

const TIMEOUT_MS = 300;
/** Generous for a busy 2-core machine, far below the 2 s default timeout. */
const SLACK_MS = 1_000;
const SESSION_ID = '7d3c1f0e-5b1a-4e8e-8f43-1c2b3a4d5e6f';
const DELIVERY = { id: '5a7c2e91-3b4d-4f6a-9c8b-0d1e2f3a4b5c', attempts: 0, nextAttemptAt: new Date() };

/** A context whose Redis is a closed port, logging warnings into `lines`. */
function unreachable(t: { teardown: (fn: () => Promise<void>) => void }, opts: RedisOptions): { ctx: AppContext; lines: Record<string, unknown>[] } {
  const redis = new Redis('redis://127.0.0.1:1', opts);
  redis.on('error', () => {});
  const lines: Record<string, unknown>[] = [];
  const ctx: AppContext = { ...h.ctx, redis, log: createLogger('warn', 'test', { write: (s: string) => lines.push(JSON.parse(s)) }) };
  t.teardown(async () => {
    await Promise.all([deliveryQueue(ctx).close(), insightsQueue(ctx).close(), dialQueue(ctx).close()]);
    redis.disconnect();
  });
  return { ctx, lines };
}

async function elapsedMs(fn: () => Promise<void>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

const kicks = [
  { name: 'kickDeliveries', run: (ctx: AppContext) => kickDeliveries(ctx, [DELIVERY], TIMEOUT_MS), message: 'webhook kick failed; the sweeper will queue these deliveries', field: { count: 1 } },
  { name: 'kickInsights', run: (ctx: AppContext) => kickInsights(ctx, SESSION_ID, null, TIMEOUT_MS), message: 'insights kick failed; the sweeper will queue it', field: { session_id: SESSION_ID } },
  { name: 'kickDial', run: (ctx: AppContext) => kickDial(ctx, SESSION_ID, TIMEOUT_MS), message: 'dial not queued; the telephony sweeper will queue it', field: { session_id: SESSION_ID } },
];

for (const kick of kicks) {
  t.test(`${kick.name}: a Redis that never answers (commands wait, as on our clients) costs at most the timeout`, async (t) => {
    // maxRetriesPerRequest null, as createRedis and BullMQ use: the add would wait forever.
    const { ctx } = unreachable(t, { maxRetriesPerRequest: null });
    const ms = await elapsedMs(() => kick.run(ctx));
    t.ok(ms >= TIMEOUT_MS - 20, `waited the timeout (${Math.round(ms)} ms)`);
    t.ok(ms < TIMEOUT_MS + SLACK_MS, `and no longer (${Math.round(ms)} ms)`);
  });

  t.test(`${kick.name}: a Redis that refuses at once is logged for the sweeper, not thrown`, async (t) => {
    const { ctx, lines } = unreachable(t, { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
    const ms = await elapsedMs(() => kick.run(ctx));
    t.ok(ms < TIMEOUT_MS + SLACK_MS, `returned (${Math.round(ms)} ms)`);
    const warned = lines.find((l) => l.msg === kick.message);
    t.ok(warned, 'the sweeper is named in the log');
    t.match(warned, { level: 40, ...kick.field, err: { message: String } });
  });
}

t.test('addWithinTimeout: a pending add is left behind at the timeout, a throwing one is logged', async (t) => {
  const lines: Record<string, unknown>[] = [];
  const ctx: AppContext = { ...h.ctx, log: createLogger('warn', 'test', { write: (s: string) => lines.push(JSON.parse(s)) }) };
  const failed = { fields: { session_id: SESSION_ID }, message: 'not queued; the sweeper will' };
  const ms = await elapsedMs(() => addWithinTimeout(ctx, () => new Promise(() => {}), 50, failed));
  t.ok(ms >= 45 && ms < 50 + SLACK_MS, `timed out (${Math.round(ms)} ms)`);
  t.same(lines, [], 'a timeout is not an error: the add may still land');

  await addWithinTimeout(ctx, () => { throw new Error('sync boom'); }, 50, failed);
  await addWithinTimeout(ctx, async () => { throw new Error('async boom'); }, 50, failed);
  t.match(lines, [
    { msg: failed.message, session_id: SESSION_ID, err: { message: 'sync boom' } },
    { msg: failed.message, session_id: SESSION_ID, err: { message: 'async boom' } },
  ]);
});
