import { randomUUID } from 'node:crypto';
import type { AppContext } from '../shared/app-context.js';
import { listSlotHolders } from '../db/repos/voice-sessions.js';
import { ACTIVE_SLOT_LEASE_MS, CREATED_SLOT_MARGIN_MS, slotKey, slotsReadyKey, slotsRebuildLockKey } from './slot-layout.js';

// After Redis lost its data (restart without persistence, FLUSHALL) the slot sets are empty while
// calls are live: taking slots then would admit past the limit. The `slots-ready` marker went with
// the data, so the first process that needs a slot rebuilds every set from Postgres, the system
// of record (created sessions whose ws_url is still valid, and active calls), before any slot is
// taken; the others wait for the marker. One rebuild at a time, under a short Redis lock.

const REBUILD_LOCK_MS = 10_000;
/** How long a caller waits for another process's rebuild before answering "unavailable". */
const WAIT_FOR_REBUILD_MS = 1_500;
const POLL_MS = 50;
/** Members per ZADD command. */
const BATCH = 1000;

const RELEASE_IF_OWNER = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

async function waitForRebuild(ctx: AppContext): Promise<void> {
  const until = Date.now() + WAIT_FOR_REBUILD_MS;
  while (Date.now() < until) {
    if (await ctx.boundedRedis.exists(slotsReadyKey(ctx))) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}

/** Rebuilds every project's slot set from Postgres, then sets the marker (or waits for whoever does). */
export async function rebuildSlots(ctx: AppContext): Promise<void> {
  const redis = ctx.boundedRedis;
  const lock = slotsRebuildLockKey(ctx);
  const owner = randomUUID();
  if ((await redis.set(lock, owner, 'PX', REBUILD_LOCK_MS, 'NX')) !== 'OK') return waitForRebuild(ctx);
  try {
    const now = ctx.clock.now();
    const holders = await listSlotHolders(ctx.sql, now);
    const byProject = new Map<string, (string | number)[][]>();
    for (const h of holders) {
      const leaseUntil = h.status === 'active' ? now.getTime() + ACTIVE_SLOT_LEASE_MS : h.token_expires_at.getTime() + CREATED_SLOT_MARGIN_MS;
      let list = byProject.get(h.project_id);
      if (!list) byProject.set(h.project_id, (list = [[]]));
      if (list[list.length - 1].length >= 2 * BATCH) list.push([]);
      list[list.length - 1].push(leaseUntil, h.id);
    }
    // One transaction: the sets and the marker appear together. GT keeps a longer lease already there.
    const multi = redis.multi();
    for (const [projectId, lists] of byProject) {
      for (const args of lists) multi.zadd(slotKey(ctx, projectId), 'GT', ...args);
      multi.pexpire(slotKey(ctx, projectId), 86_400_000);
    }
    multi.set(slotsReadyKey(ctx), now.toISOString());
    await multi.exec();
    ctx.log.info({ sessions: holders.length, projects: byProject.size }, 'concurrency slots rebuilt from the live sessions in Postgres (marker missing: first start, or Redis lost its data)');
  } finally {
    await redis.eval(RELEASE_IF_OWNER, 1, lock, owner).catch(() => {});
  }
}
