import type { AppContext } from './shared/app-context.js';
import type { Config } from './config/env.js';
import { migrate, pendingMigrations } from './db/migrate.js';
import { createSql, ensureDatabase } from './shared/sql.js';
import { systemClock } from './shared/clock.js';
import { loadKeyring } from './shared/crypto/keyring.js';
import { createLogger, type Logger } from './shared/logger.js';
import { logMailer, smtpMailer } from './shared/mailer.js';
import { createBoundedRedis, createRedis, redisReady } from './shared/redis.js';
import { logRedisOutages } from './shared/redis-outages.js';

/**
 * `prepare` (the service): create the database when missing and migrate it. `existing` (the admin
 * CLI): use the service's database as it is, and refuse with a clear error when it is missing or
 * not migrated, so a wrong DATABASE_URL never creates a stray empty database.
 */
export type DatabaseUse = 'prepare' | 'existing';

/** Connects storage and builds the context. */
export async function createContext(config: Config, overrides: Partial<AppContext> = {}, use: DatabaseUse = 'prepare'): Promise<AppContext> {
  const log: Logger = overrides.log ?? createLogger(config.LOG_LEVEL);
  if (config.ALLOW_PRIVATE_URLS) log.warn('ALLOW_PRIVATE_URLS=1: private and loopback URLs are accepted (development only)');
  if (use === 'prepare') await ensureDatabase(config.DATABASE_URL);
  const sql = overrides.sql ?? createSql(config.DATABASE_URL, { connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS, statementTimeoutMs: config.DATABASE_STATEMENT_TIMEOUT_MS });
  if (use === 'prepare') {
    // Migrations (and waiting for another process's) may take longer than a request's statement timeout.
    const migrator = createSql(config.DATABASE_URL, { max: 1, connectTimeoutMs: config.DATABASE_CONNECT_TIMEOUT_MS });
    const applied = await migrate(migrator).finally(() => migrator.end({ timeout: 5 }));
    if (applied.length) log.info({ applied }, 'database migrated');
  } else {
    await checkExistingDatabase(sql, config.DATABASE_URL).catch(async (err: unknown) => {
      await sql.end({ timeout: 1 });
      throw err;
    });
  }
  const boundedRedis = overrides.boundedRedis ?? createBoundedRedis(config.REDIS_URL, config.REDIS_COMMAND_TIMEOUT_MS, config.REDIS_CLUSTER_NODES);
  logRedisOutages(boundedRedis, log);
  // It fails commands while it connects (no offline queue): give it a moment at start. Redis
  // down at start is not fatal; slots and rate windows answer "unavailable" until it is back.
  await redisReady(boundedRedis, 2000).catch((err: unknown) => log.warn({ err: { message: (err as Error).message } }, 'redis not reachable at start'));
  let redis = overrides.redis;
  if (!redis) {
    redis = createRedis(config.REDIS_URL, config.REDIS_CLUSTER_NODES);
    redis.on('error', () => {}); // an outage is logged once, by boundedRedis's listener
  }
  return {
    config,
    sql,
    redis,
    boundedRedis,
    redisPrefix: overrides.redisPrefix ?? 'vc:',
    keyring: overrides.keyring ?? loadKeyring(config.KEYRING, config.DATA_DIR, log),
    log,
    clock: overrides.clock ?? systemClock,
    mailer: overrides.mailer ?? (config.SMTP_URL ? smtpMailer(config.SMTP_URL, config.MAIL_FROM, log) : logMailer(log)),
  };
}

export async function closeContext(ctx: AppContext): Promise<void> {
  await Promise.allSettled([ctx.sql.end({ timeout: 5 }), ctx.redis.quit(), ctx.boundedRedis.quit().catch(() => ctx.boundedRedis.disconnect())]);
}

async function checkExistingDatabase(sql: AppContext['sql'], url: string): Promise<void> {
  const where = new URL(url);
  const name = decodeURIComponent(where.pathname.replace(/^\//, ''));
  const at = `${where.hostname}:${where.port || '5432'}`;
  let pending: string[];
  try {
    pending = await pendingMigrations(sql);
  } catch (err) {
    if ((err as { code?: string }).code === '3D000') {
      throw new Error(`database "${name}" not found on ${at}: set DATABASE_URL (or .env) to the service's database; this command never creates one`);
    }
    throw err;
  }
  if (pending.length) throw new Error(`database "${name}" on ${at} is not migrated (${pending.length} pending): start the service once to migrate it`);
}
