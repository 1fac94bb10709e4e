import type { AppContext } from '../shared/app-context.js';

// Concurrency slots: one Redis sorted set per project, member = session id, score = lease
// expiry (ms). A slot whose lease is not renewed (crashed node, unused ws_url) falls out by
// itself, so a dead node's slots come back without anyone cleaning up.

/** A created session keeps its slot until its ws_url expires, plus this margin for the sweeper. */
export const CREATED_SLOT_MARGIN_MS = 30_000;
/** An active call's slot lease; the media node renews it every `SLOT_RENEW_MS`. */
export const ACTIVE_SLOT_LEASE_MS = 30_000;
export const SLOT_RENEW_MS = 10_000;

// KEYS[1] set; ARGV now, leaseUntil, max, member. Returns -1 when taken (or already held),
// else the earliest lease expiry so the caller can compute Retry-After.
const TAKE = `
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
  return -1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  if first[2] then return tonumber(first[2]) end
  return tonumber(ARGV[1]) + 1000
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], 86400000)
return -1
`;

const key = (ctx: AppContext, projectId: string) => `${ctx.redisPrefix}slots:${projectId}`;

export type SlotResult = { taken: true } | { taken: false; retryAfterSeconds: number };

export async function takeSlot(ctx: AppContext, projectId: string, sessionId: string, max: number, leaseUntilMs: number): Promise<SlotResult> {
  const nowMs = ctx.clock.now().getTime();
  const res = (await ctx.redis.eval(TAKE, 1, key(ctx, projectId), nowMs, leaseUntilMs, max, sessionId)) as number;
  if (res === -1) return { taken: true };
  return { taken: false, retryAfterSeconds: Math.min(60, Math.max(1, Math.ceil((res - nowMs) / 1000))) };
}

/** Calls renewed per ZADD command. */
const RENEW_BATCH = 1000;

/** Renews leases of calls this node runs (unconditional: an active call keeps its slot). */
export async function renewSlots(ctx: AppContext, entries: { projectId: string; sessionId: string }[], leaseUntilMs: number): Promise<void> {
  // One ZADD per project (up to RENEW_BATCH calls each) rather than one per call: per-call
  // commands blocked the media node's event loop, and so its pacing, for 3–20 ms at 500–2,000 calls.
  const batches = new Map<string, (string | number)[][]>();
  for (const e of entries) {
    let list = batches.get(e.projectId);
    if (!list) batches.set(e.projectId, (list = [[]]));
    if (list[list.length - 1].length >= 2 * RENEW_BATCH) list.push([]);
    list[list.length - 1].push(leaseUntilMs, e.sessionId);
  }
  const commands = [...batches].flatMap(([projectId, list]) => list.map((args) => ctx.redis.zadd(key(ctx, projectId), ...args)));
  await Promise.all(commands);
}

export async function releaseSlot(ctx: AppContext, projectId: string, sessionId: string): Promise<void> {
  await ctx.redis.zrem(key(ctx, projectId), sessionId);
}

export async function countSlots(ctx: AppContext, projectId: string): Promise<number> {
  const nowMs = ctx.clock.now().getTime();
  return ctx.redis.zcount(key(ctx, projectId), `(${nowMs}`, '+inf');
}
