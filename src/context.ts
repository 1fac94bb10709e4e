import type { AppContext } from './shared/app-context.js';
import type { Config } from './config/env.js';
import { migrate } from './db/migrate.js';
import { createSql, ensureDatabase } from './shared/sql.js';
import { systemClock } from './shared/clock.js';
import { loadKeyring } from './shared/crypto/keyring.js';
import { createLogger, type Logger } from './shared/logger.js';
import { logMailer } from './shared/mailer.js';
import { createRedis } from './shared/redis.js';

/** Connects storage (creating and migrating the database when needed) and builds the context. */
export async function createContext(config: Config, overrides: Partial<AppContext> = {}): Promise<AppContext> {
  const log: Logger = overrides.log ?? createLogger(config.LOG_LEVEL);
  if (config.ALLOW_PRIVATE_URLS) log.warn('ALLOW_PRIVATE_URLS=1: private and loopback URLs are accepted (development only)');
  await ensureDatabase(config.DATABASE_URL);
  const sql = overrides.sql ?? createSql(config.DATABASE_URL);
  const applied = await migrate(sql);
  if (applied.length) log.info({ applied }, 'database migrated');
  return {
    config,
    sql,
    redis: overrides.redis ?? createRedis(config.REDIS_URL),
    redisPrefix: overrides.redisPrefix ?? 'vc:',
    keyring: overrides.keyring ?? loadKeyring(config.KEYRING, config.DATA_DIR, log),
    log,
    clock: overrides.clock ?? systemClock,
    mailer: overrides.mailer ?? logMailer(log),
  };
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await Promise.allSettled([ctx.sql.end({ timeout: 5 }), ctx.redis.quit()]);
}
