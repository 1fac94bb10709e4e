import { Cluster, Redis, type RedisOptions } from 'ioredis';

export type { Redis };

/** A Redis Cluster's seed nodes (REDIS_CLUSTER_NODES). */
export interface ClusterNode {
  host: string;
  port: number;
}

/**
 * One client: a plain connection to `url`, or with `clusterNodes` an ioredis Cluster (typed as
 * Redis: the commands the service uses are the same; every multi-key command and script keeps
 * its keys in one hash slot, see docs/media.md "Redis Cluster"). Credentials, database-less
 * options and TLS of `url` apply to every cluster node.
 */
export function openRedis(url: string, clusterNodes: ClusterNode[] | undefined, options: RedisOptions): Redis {
  if (!clusterNodes?.length) return new Redis(url, options);
  const u = new URL(url);
  const fromUrl: RedisOptions = {
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  const { enableOfflineQueue, enableReadyCheck, lazyConnect, ...perNode } = options;
  const cluster = new Cluster(clusterNodes, {
    redisOptions: { ...fromUrl, ...perNode },
    ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
    ...(enableReadyCheck === undefined ? {} : { enableReadyCheck }),
    ...(lazyConnect === undefined ? {} : { lazyConnect }),
  });
  return cluster as unknown as Redis;
}

/**
 * The connection BullMQ producers share (`ctx.redis`): BullMQ requires `maxRetriesPerRequest:
 * null`, so a command waits out an outage and lands once Redis is back. Never await it on a
 * request or media path without a bound (the queue helpers add jobs through `addWithinTimeout`).
 */
export function createRedis(url: string, clusterNodes?: ClusterNode[]): Redis {
  return openRedis(url, clusterNodes, { maxRetriesPerRequest: null, enableReadyCheck: true, lazyConnect: false });
}

/**
 * The connection of request and media paths (`ctx.boundedRedis`: slots, rate windows, sign-in
 * throttle, readiness): every command answers or fails within `commandTimeoutMs`. No offline
 * queue (while disconnected a command fails at once and is never sent late, so a slot taken
 * after its caller gave up cannot appear) and no retries on reconnect.
 */
export function createBoundedRedis(url: string, commandTimeoutMs: number, clusterNodes?: ClusterNode[]): Redis {
  return openRedis(url, clusterNodes, {
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
