import type { Config } from '../config/env.js';
import type { Sql } from './sql.js';
import type { Redis } from './redis.js';
import type { Keyring } from './crypto/keyring.js';
import type { Logger } from './logger.js';
import type { Clock } from './clock.js';
import type { Mailer } from './mailer.js';

/** What every role and route needs, built once at start and passed down explicitly. */
export interface AppContext {
  config: Config;
  sql: Sql;
  /** BullMQ producers' connection: waits out outages (never awaited unbounded on a request or media path). */
  redis: Redis;
  /** Request and media paths' connection: every command answers or fails within REDIS_COMMAND_TIMEOUT_MS. */
  boundedRedis: Redis;
  /** Prefix of every Redis key (and BullMQ queue prefix) so tests and tenants of one Redis stay apart. */
  redisPrefix: string;
  keyring: Keyring;
  log: Logger;
  clock: Clock;
  mailer: Mailer;
}
