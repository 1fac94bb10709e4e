import type { AppContext } from '../shared/app-context.js';
import { sessionErrors } from '../shared/errors.js';
import { noteRedisFailure, redisUsable } from '../shared/redis.js';
import { rebuildSlots } from './slot-rebuild.js';
import { slotKey, slotsReadyKey } from './slot-layout.js';

export { ACTIVE_SLOT_LEASE_MS, CREATED_SLOT_MARGIN_MS, SLOT_RENEW_MS } from './slot-layout.js';

// Concurrency slots: one Redis sorted set per project, member = session id, score = lease
// expiry (ms). A slot whose lease is not renewed (crashed node, unused ws_url) falls out by
// itself, so a dead node's slots come back without anyone cleaning up.
//
// Every command goes through `ctx.boundedRedis` (it answers or fails within
// REDIS_COMMAND_TIMEOUT_MS) and never runs inside a Postgres transaction. Every member is added
// through the limit check (take), so a set never holds more than `max_concurrent_sessions`;
// renewal only extends members that are there. The sets are trusted only while the
// `slots-ready` marker exists: a Redis that lost its data (restart without persistence,
// FLUSHALL) lost the marker too, and the first caller rebuilds every set from the sessions
// Postgres knows to be live before any slot is taken (`slot-rebuild.ts`).

/** Retry-After when slots cannot be counted (Redis unreachable or being rebuilt). */
export const SLOTS_UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

// KEYS[1] set, KEYS[2] ready marker; ARGV now, leaseUntil, max, member. Returns -2 when the sets
// must be rebuilt first, -1 when the member already held a slot (its lease is set to
// leaseUntil), 0 when it was added, else the earliest lease expiry (the set is full).
const TAKE = `
if redis.call('EXISTS', KEYS[2]) == 0 then return -2 end
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
return 0
`;

export type SlotResult = { taken: true; added: boolean } | { taken: false; retryAfterSeconds: number };

/** Thrown (as a 503 AppError) when slots cannot be counted: Redis unreachable, slow, or mid-rebuild. */
const unavailable = () => sessionErrors.slotsUnavailable(SLOTS_UNAVAILABLE_RETRY_AFTER_SECONDS);

async function evalTake(ctx: AppContext, projectId: string, sessionId: string, max: number, leaseUntilMs: number, nowMs: number): Promise<number> {
  if (!redisUsable(ctx.boundedRedis)) throw unavailable();
  try {
    return (await ctx.boundedRedis.eval(TAKE, 2, slotKey(ctx, projectId), slotsReadyKey(ctx), nowMs, leaseUntilMs, max, sessionId)) as number;
  } catch (err) {
    noteRedisFailure(ctx.boundedRedis);
    ctx.log.warn({ err: { message: (err as Error).message }, project_id: projectId }, 'concurrency slot unavailable');
    throw unavailable();
  }
}

/**
 * Takes (or renews) the session's slot if the project has fewer than `max` live slots. `added`
 * says the member is new, so a caller that then fails gives it back. Throws the 503
 * `slotsUnavailable` error when Redis cannot answer.
 */
export async function takeSlot(ctx: AppContext, projectId: string, sessionId: string, max: number, leaseUntilMs: number): Promise<SlotResult> {
  const nowMs = ctx.clock.now().getTime();
  let res = await evalTake(ctx, projectId, sessionId, max, leaseUntilMs, nowMs);
  if (res === -2) {
    await rebuildSlots(ctx).catch((err: unknown) => {
      ctx.log.warn({ err: { message: (err as Error).message } }, 'concurrency slots could not be rebuilt');
      throw unavailable();
    });
    res = await evalTake(ctx, projectId, sessionId, max, leaseUntilMs, nowMs);
    if (res === -2) throw unavailable(); // another process is still rebuilding
  }
  if (res === -1 || res === 0) return { taken: true, added: res === 0 };
  return { taken: false, retryAfterSeconds: Math.min(60, Math.max(1, Math.ceil((res - nowMs) / 1000))) };
}

/** Gives a slot back (settlement, failed admission). Best effort: an unreleased slot lapses with its lease. */
export async function releaseSlot(ctx: AppContext, projectId: string, sessionId: string): Promise<void> {
  await ctx.boundedRedis.zrem(slotKey(ctx, projectId), sessionId);
}

export async function countSlots(ctx: AppContext, projectId: string): Promise<number> {
  const nowMs = ctx.clock.now().getTime();
  return ctx.boundedRedis.zcount(slotKey(ctx, projectId), `(${nowMs}`, '+inf');
}
