import t from 'tap';
import { randomUUID } from 'node:crypto';
import { startHarness } from '../helpers/harness.js';
import { ManualClock } from '../../src/shared/clock.js';
import { countSlots, takeSlot } from '../../src/sessions/slots.js';
import { renewSlots } from '../../src/sessions/slot-renewal.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';

// Slot leases in the real Redis: taking, refusing with Retry-After, lapsing, and the media
// node's batched renewal across projects.

const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
const h = await startHarness({ clock, app: false });
t.teardown(h.close);
const nowMs = () => clock.now().getTime();

t.test('a full project refuses with the earliest expiry; a lapsed slot frees a place', async (t) => {
  const project = randomUUID();
  t.same(await takeSlot(h.ctx, project, 'a', 2, nowMs() + 10_000), { taken: true, added: true });
  t.same(await takeSlot(h.ctx, project, 'b', 2, nowMs() + 20_000), { taken: true, added: true });
  t.same(await takeSlot(h.ctx, project, 'a', 2, nowMs() + 10_000), { taken: true, added: false }, 'a holder renews its own slot');
  t.same(await takeSlot(h.ctx, project, 'c', 2, nowMs() + 10_000), { taken: false, retryAfterSeconds: 10 });
  clock.advance(10_001);
  t.same(await takeSlot(h.ctx, project, 'c', 2, nowMs() + 10_000), { taken: true, added: true }, "a's lease lapsed");
  t.equal(await countSlots(h.ctx, project), 2);
});

t.test('renewal extends every call of every project, in batches', async (t) => {
  const projects = [randomUUID(), randomUUID()];
  // 2,500 calls in one project (three ZADD batches) and 3 in another.
  const entries = [
    ...Array.from({ length: 2500 }, () => ({ projectId: projects[0], sessionId: randomUUID() })),
    ...Array.from({ length: 3 }, () => ({ projectId: projects[1], sessionId: randomUUID() })),
  ];
  await takeSlot(h.ctx, randomUUID(), 'x', 1, nowMs()); // the sets are trusted (rebuilt once)
  const taken = h.ctx.redis.pipeline();
  for (const e of entries) taken.zadd(`${h.ctx.redisPrefix}{slots}:slots:${e.projectId}`, nowMs() + 1_000, e.sessionId);
  await taken.exec();
  t.same(await renewSlots(h.ctx, entries, nowMs() + 30_000), { restored: [], unslotted: [] });
  clock.advance(20_000);
  t.equal(await countSlots(h.ctx, projects[0]), 2500, 'every call of the big project still holds its slot');
  t.equal(await countSlots(h.ctx, projects[1]), 3);
  const scores = await h.ctx.redis.zrange(`${h.ctx.redisPrefix}{slots}:slots:${projects[0]}`, '0', '-1', 'WITHSCORES');
  const distinct = new Set(scores.filter((_, i) => i % 2 === 1));
  t.same([...distinct], [String(nowMs() + 10_000)], 'all leases end together, 30 s after the renewal');
  clock.advance(10_001);
  t.equal(await countSlots(h.ctx, projects[0]), 0, 'and lapse together');
  await renewSlots(h.ctx, [], nowMs());
});

t.test('renewal takes a lost slot again only through the limit', async (t) => {
  const tenant = await createTenant(h);
  await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 2 });
  const calls = [randomUUID(), randomUUID()];
  for (const id of calls) await takeSlot(h.ctx, tenant.projectId, id, 2, nowMs() + 30_000);
  // Both leases lapse (say Redis was unreachable from the node); meanwhile another session takes a place.
  clock.advance(30_001);
  t.same(await takeSlot(h.ctx, tenant.projectId, 'newcomer', 2, nowMs() + 30_000), { taken: true, added: true });
  const entries = calls.map((sessionId) => ({ projectId: tenant.projectId, sessionId }));
  const r = await renewSlots(h.ctx, entries, nowMs() + 30_000);
  t.same(r.restored, [calls[0]], 'one place was free');
  t.same(r.unslotted, [calls[1]], 'the other is not pushed past the limit');
  t.equal(await countSlots(h.ctx, tenant.projectId), 2);
});
