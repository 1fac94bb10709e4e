import type { AppContext } from '../../shared/app-context.js';

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
  const [count, msLeft] = (await ctx.redis.eval(WINDOW_SCRIPT, 1, `${ctx.redisPrefix}rl:${bucket}`)) as [number, number];
  return {
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil(msLeft / 1000)),
    exceeded: count > limit,
  };
}

export function rateHeaders(w: RateWindow): Record<string, string> {
  return {
    'x-ratelimit-limit': String(w.limit),
    'x-ratelimit-remaining': String(w.remaining),
    'x-ratelimit-reset': String(w.resetSeconds),
  };
}
