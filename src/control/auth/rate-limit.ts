import type { AppContext } from '../../shared/app-context.js';
import { noteRedisFailure, redisUsable } from '../../shared/redis.js';

// Fixed one-minute window per project, counted in Redis with Redis's own clock, so every
// API process sharing the Redis shares one window.
const WINDOW_SCRIPT = `
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local window = math.floor(nowMs / 60000)
local key = KEYS[1] .. ':' .. window
local count = redis.call('INCR', key)
if count == 1 then redis.call('PEXPIRE', key, 61000) end
return {count, (window + 1) * 60000 - nowMs}
`;

export interface RateWindow {
  limit: number;
  remaining: number;
  resetSeconds: number;
  exceeded: boolean;
}

/** Counts one request in `bucket`'s current minute (e.g. `project:<id>`, `pk:<id>`, `ip:<addr>`). */
export async function takeRequest(ctx: AppContext, bucket: string, limit: number): Promise<RateWindow> {
  // Redis unreachable or slow: the request is let through uncounted (fails open), at once when the
  // client knows it is disconnected and within REDIS_COMMAND_TIMEOUT_MS otherwise.
  if (!redisUsable(ctx.boundedRedis)) return uncounted(ctx, limit, `redis is ${ctx.boundedRedis.status} or failing`);
  let reply: [number, number];
  try {
    // The bucket is the key's hash tag: the script's per-minute key stays in KEYS[1]'s Redis Cluster slot.
    reply = (await ctx.boundedRedis.eval(WINDOW_SCRIPT, 1, `${ctx.redisPrefix}rl:{${bucket}}`)) as [number, number];
  } catch (err) {
    noteRedisFailure(ctx.boundedRedis);
    return uncounted(ctx, limit, err instanceof Error ? err.message : String(err));
  }
  const [count, msLeft] = reply;
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
    exceeded: count > limit,
  };
}

// Failing open is logged once per process and outage minute, not once per request.
const lastWarnedMs = new WeakMap<AppContext, number>();
const WARN_EVERY_MS = 60_000;

/**
 * The window when it cannot be counted. The choice (README, docs/architecture.md): fail open.
 * An outage of Redis, which holds only rebuildable state, must not take down the reads of the
 * machine door that need only Postgres; admission, the costly path, still needs its slot and
 * answers 503 while Redis is away, and the Postgres pool bounds what the rest can do.
 */
function uncounted(ctx: AppContext, limit: number, why: string): RateWindow {
  const nowMs = Date.now();
  if (nowMs - (lastWarnedMs.get(ctx) ?? Number.NEGATIVE_INFINITY) >= WARN_EVERY_MS) {
    lastWarnedMs.set(ctx, nowMs);
    ctx.log.warn({ reason: why }, 'rate limiter unavailable: machine-door requests pass uncounted');
  }
  return { limit, remaining: limit, resetSeconds: 60 - (Math.floor(nowMs / 1000) % 60), exceeded: false };
}

export function rateHeaders(w: RateWindow): Record<string, string> {
  return {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(w.resetSeconds),
  };
}
