import { Redis } from 'ioredis';

export type { Redis };

/**
 * The connection BullMQ producers share (`ctx.redis`): BullMQ requires `maxRetriesPerRequest:
 * null`, so a command waits out an outage and lands once Redis is back. Never await it on a
 * request or media path without a bound (the queue helpers add jobs through `addWithinTimeout`).
 */
export function createRedis(url: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/**
 * The connection of request and media paths (`ctx.boundedRedis`: slots, rate windows, sign-in
 * throttle, readiness): every command answers or fails within `commandTimeoutMs`. No offline
 * queue (while disconnected a command fails at once and is never sent late, so a slot taken
 * after its caller gave up cannot appear) and no retries on reconnect.
 */
export function createBoundedRedis(url: string, commandTimeoutMs: number): Redis {
  return new Redis(url, {
    commandTimeout: commandTimeoutMs,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    enableReadyCheck: true,
    lazyConnect: false,
  });
}

/** Resolves once the client is connected (or at once when it already is); rejects after `timeoutMs`. */
export async function redisReady(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status === 'ready') return;
  let timer: NodeJS.Timeout | undefined;
  let onReady: (() => void) | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      onReady = resolve;
      redis.once('ready', onReady);
      timer = setTimeout(() => reject(new Error(`redis not ready within ${timeoutMs} ms (${redis.status})`)), timeoutMs);
    });
  } finally {
    clearTimeout(timer);
    if (onReady) redis.off('ready', onReady);
  }
}

// A command that just failed on a connected client (Redis hung, or slow past the timeout) makes
// the next ones fail at once for a moment instead of each waiting the whole timeout again: a
// request that would ask Redis twice (rate window, then slot) answers within one timeout.
const FAILURE_HOLD_MS = 1_000;
const lastFailureMs = new WeakMap<Redis, number>();

/** Worth asking: connected, and no command failed within the last second. */
export function redisUsable(redis: Redis): boolean {
  return redis.status === 'ready' && performance.now() - (lastFailureMs.get(redis) ?? Number.NEGATIVE_INFINITY) >= FAILURE_HOLD_MS;
}

export function noteRedisFailure(redis: Redis): void {
  lastFailureMs.set(redis, performance.now());
}
