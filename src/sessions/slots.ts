import type { AppContext } from '../shared/app-context.js';
import { sessionErrors } from '../shared/errors.js';
import { noteRedisFailure, redisUsable } from '../shared/redis.js';
import { rebuildSlots } from './slot-rebuild.js';
import { keySlotKey, slotKey, slotsReadyKey } from './slot-layout.js';

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

// KEYS[1] ready marker, KEYS[2] the project's set, KEYS[3] (optional) a publishable key's set;
// ARGV now, member, then max and leaseUntil for each set. The member is added to every set or to
// none. Returns -2 when the sets must be rebuilt first, -1 when the member already held a project
// slot (its leases are set to the new ones), 0 when it was added, else the earliest lease expiry
// of a set that is full.
const TAKE = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -2 end
local now, member = tonumber(ARGV[1]), ARGV[2]
local held = {}
for i = 2, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
  held[i] = redis.call('ZSCORE', KEYS[i], member)
  if not held[i] and redis.call('ZCARD', KEYS[i]) >= tonumber(ARGV[2 * i - 1]) then
    local first = redis.call('ZRANGE', KEYS[i], 0, 0, 'WITHSCORES')
    if first[2] then return tonumber(first[2]) end
    return now + 1000
  end
end
for i = 2, #KEYS do
  redis.call('ZADD', KEYS[i], ARGV[2 * i], member)
  redis.call('PEXPIRE', KEYS[i], 86400000)
end
if held[2] then return -1 end
return 0
`;

/** A second budget the slot must also fit in: a publishable key's (browser sessions). */
export interface KeyBudget {
  keyId: string;
  max: number;
  leaseUntilMs: number;
}

export type SlotResult = { taken: true; added: boolean } | { taken: false; retryAfterSeconds: number };

/** Thrown (as a 503 AppError) when slots cannot be counted: Redis unreachable, slow, or mid-rebuild. */
const unavailable = () => sessionErrors.slotsUnavailable(SLOTS_UNAVAILABLE_RETRY_AFTER_SECONDS);

async function evalTake(ctx: AppContext, projectId: string, sessionId: string, max: number, leaseUntilMs: number, nowMs: number, key?: KeyBudget): Promise<number> {
  if (!redisUsable(ctx.boundedRedis)) throw unavailable();
  const keys = [slotsReadyKey(ctx), slotKey(ctx, projectId), ...(key ? [keySlotKey(ctx, key.keyId)] : [])];
  const args = [nowMs, sessionId, max, leaseUntilMs, ...(key ? [key.max, key.leaseUntilMs] : [])];
  try {
    return (await ctx.boundedRedis.eval(TAKE, keys.length, ...keys, ...args)) as number;
  } catch (err) {
    noteRedisFailure(ctx.boundedRedis);
    ctx.log.warn({ err: { message: (err as Error).message }, project_id: projectId }, 'concurrency slot unavailable');
    throw unavailable();
  }
}

/**
 * Takes (or renews) the session's slot if the project has fewer than `max` live slots (and, with
 * `key`, the publishable key fewer than `key.max`: both or neither). `added` says the member is
 * new, so a caller that then fails gives it back. Throws the 503 `slotsUnavailable` error when
 * Redis cannot answer.
 */
export async function takeSlot(ctx: AppContext, projectId: string, sessionId: string, max: number, leaseUntilMs: number, key?: KeyBudget): Promise<SlotResult> {
  const nowMs = ctx.clock.now().getTime();
  let res = await evalTake(ctx, projectId, sessionId, max, leaseUntilMs, nowMs, key);
  if (res === -2) {
    await rebuildSlots(ctx).catch((err: unknown) => {
      ctx.log.warn({ err: { message: (err as Error).message } }, 'concurrency slots could not be rebuilt');
      throw unavailable();
    });
    res = await evalTake(ctx, projectId, sessionId, max, leaseUntilMs, nowMs, key);
    if (res === -2) throw unavailable(); // another process is still rebuilding
  }
  if (res === -1 || res === 0) return { taken: true, added: res === 0 };
  return { taken: false, retryAfterSeconds: Math.min(60, Math.max(1, Math.ceil((res - nowMs) / 1000))) };
}

/** Gives a slot back (settlement, failed admission). Best effort: an unreleased slot lapses with its lease. */
export async function releaseSlot(ctx: AppContext, projectId: string, sessionId: string): Promise<void> {
  await ctx.boundedRedis.zrem(slotKey(ctx, projectId), sessionId);
}

/** Gives a publishable key's budget slot back (settlement, failed admission). Best effort, as above. */
export async function releaseKeySlot(ctx: AppContext, keyId: string, sessionId: string): Promise<void> {
  await ctx.boundedRedis.zrem(keySlotKey(ctx, keyId), sessionId);
}

export async function countKeySlots(ctx: AppContext, keyId: string): Promise<number> {
  const nowMs = ctx.clock.now().getTime();
  return ctx.boundedRedis.zcount(keySlotKey(ctx, keyId), `(${nowMs}`, '+inf');
}

export async function countSlots(ctx: AppContext, projectId: string): Promise<number> {
  const nowMs = ctx.clock.now().getTime();
  return ctx.boundedRedis.zcount(slotKey(ctx, projectId), `(${nowMs}`, '+inf');
}
