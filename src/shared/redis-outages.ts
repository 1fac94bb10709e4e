import type { Redis } from 'ioredis';
import type { Logger } from './logger.js';

/**
 * Logs a Redis outage once when it starts (with the first error) and once when Redis answers
 * again, instead of ioredis's error event on every reconnect attempt (and its "unhandled error
 * event" console output when nobody listens).
 */
export function logRedisOutages(redis: Redis, log: Logger): void {
  let downSince: number | null = null;
  redis.on('error', (err: Error) => {
    if (downSince !== null) return;
    downSince = Date.now();
    log.warn({ err: { message: err.message } }, 'redis unreachable: slots and rate windows unavailable until it is back');
  });
  redis.on('ready', () => {
    if (downSince === null) return;
    log.info({ down_ms: Date.now() - downSince }, 'redis reachable again');
    downSince = null;
  });
}
