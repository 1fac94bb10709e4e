import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../src/shared/app-context.js';
import { loadConfig, type Config } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { buildApp } from '../../src/control/app.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { ManualClock, systemClock, type Clock } from '../../src/shared/clock.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { MemoryMailer } from '../../src/shared/mailer.js';

// Each test file gets its own Postgres database and its own Redis key prefix, so test files
// (and several developers' runs) can share one server without seeing each other.

const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';

export interface Harness {
  ctx: AppContext;
  app: FastifyInstance;
  mailer: MemoryMailer;
  clock: Clock;
  close: () => Promise<void>;
}

export function testKeyring(): Keyring {
  return new Keyring([{ id: 't1', key: randomBytes(32) }]);
}

export interface HarnessOptions {
  env?: Record<string, string>;
  clock?: ManualClock;
  app?: boolean;
  /** Another Postgres server (`postgres://user@host:port`), e.g. one the test stops itself. */
  databaseBase?: string;
  /** Another Redis (`redis://host:port`), e.g. one the test stops itself. */
  redisUrl?: string;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const dbName = `voice_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const config: Config = loadConfig({
    DATABASE_URL: `${opts.databaseBase ?? PG_BASE}/${dbName}`,
    REDIS_URL: opts.redisUrl ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    ALLOW_PRIVATE_URLS: '1',
    PORT: '0',
    MEDIA_PORT: '0',
    WORKER_HTTP_PORT: '0',
    // Socket mechanics are tested on the echo pipeline; conversation tests ask for `agent`.
    MEDIA_PIPELINE: 'echo',
    ...opts.env,
  });
  const mailer = new MemoryMailer();
  const clock = opts.clock ?? systemClock;
  const ctx = await createContext(config, {
    log: createLogger(config.LOG_LEVEL),
    keyring: testKeyring(),
    // With SMTP_URL the context mails through SMTP, as the service does (test/shared/smtp-mail.test.ts).
    mailer: config.SMTP_URL ? undefined : mailer,
    clock,
    redisPrefix: `vc:test:${dbName}:`,
  });
  const app = opts.app === false ? (undefined as unknown as FastifyInstance) : await buildApp(ctx);
  return {
    ctx,
    app,
    mailer,
    clock,
    close: async () => {
      if (app) await app.close();
      const keys = await ctx.redis.keys(`${ctx.redisPrefix}*`);
      if (keys.length) await ctx.redis.del(...keys);
      await closeContext(ctx);
      await dropDatabase(config.DATABASE_URL);
    },
  };
}
