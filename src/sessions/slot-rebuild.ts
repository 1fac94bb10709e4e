import { randomUUID } from 'node:crypto';
import type { AppContext } from '../shared/app-context.js';
import { listKeySlotHolders } from '../db/repos/publishable-keys.js';
import { listSlotHolders } from '../db/repos/voice-sessions.js';
import { ACTIVE_SLOT_LEASE_MS, CREATED_SLOT_MARGIN_MS, keySlotKey, keySlotLeaseUntil, slotKey, slotsReadyKey, slotsRebuildLockKey } from './slot-layout.js';

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
    const bySet = new Map<string, (string | number)[][]>();
    const add = (set: string, leaseUntil: number, id: string) => {
      let list = bySet.get(set);
      if (!list) bySet.set(set, (list = [[]]));
      if (list[list.length - 1].length >= 2 * BATCH) list.push([]);
      list[list.length - 1].push(leaseUntil, id);
    };
    for (const h of holders) {
      add(slotKey(ctx, h.project_id), h.status === 'active' ? now.getTime() + ACTIVE_SLOT_LEASE_MS : h.token_expires_at.getTime() + CREATED_SLOT_MARGIN_MS, h.id);
    }
    // Publishable keys' budgets (browser sessions), with the lease admission gave them.
    const keyHolders = await listKeySlotHolders(ctx.sql, now);
    for (const h of keyHolders) add(keySlotKey(ctx, h.publishable_key_id), keySlotLeaseUntil(h.token_expires_at, h.max_duration_seconds), h.id);
    // One transaction: the sets and the marker appear together. GT keeps a longer lease already there.
    const multi = redis.multi();
    for (const [set, lists] of bySet) {
      for (const args of lists) multi.zadd(set, 'GT', ...args);
      multi.pexpire(set, 86_400_000);
    }
    multi.set(slotsReadyKey(ctx), now.toISOString());
    await multi.exec();
    ctx.log.info({ sessions: holders.length, browser_sessions: keyHolders.length, sets: bySet.size }, 'concurrency slots rebuilt from the live sessions in Postgres (marker missing: first start, or Redis lost its data)');
  } finally {
    await redis.eval(RELEASE_IF_OWNER, 1, lock, owner).catch(() => {});
  }
}
