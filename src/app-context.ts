import type { Config } from './config/env.js';
import type { Sql } from './db/sql.js';
import type { Redis } from './shared/redis.js';
import type { Keyring } from './shared/crypto/keyring.js';
import type { Logger } from './shared/logger.js';
import type { Clock } from './shared/clock.js';
import type { Mailer } from './shared/mailer.js';

/** What every role and route needs, built once at start and passed down explicitly. */
export interface AppContext {
  config: Config;
  sql: Sql;
  redis: Redis;
  /** Prefix of every Redis key (and BullMQ queue prefix) so tests and tenants of one Redis stay apart. */
  redisPrefix: string;
  keyring: Keyring;
  log: Logger;
  clock: Clock;
  mailer: Mailer;
}
