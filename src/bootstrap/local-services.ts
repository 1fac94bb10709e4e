import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { loadConfig } from '../config/env.js';
import type { Logger } from '../shared/logger.js';
import { leftoverChildren, removeRecord, stopProcess, writeRecord } from './child-process-record.js';
import { startEmbeddedPostgres } from './embedded-postgres.js';
import type { LocalServer } from './local-server.js';
import { answers } from './reachable.js';
import { findRedisServer, INSTALL_REDIS, startRedisChild } from './redis-child.js';

// First run with nothing installed but Node: when DATABASE_URL / REDIS_URL are not set and
// nothing answers on 127.0.0.1's usual port (LOCAL_POSTGRES_PORT, LOCAL_REDIS_PORT), the service
// starts an embedded Postgres and a redis-server of its own, as child processes, on that port
// (so the admin CLI's defaults find them too). Called by the entry (src/main.ts, scripts/demo.ts)
// before the context is built. NODE_ENV=production never falls back: a missing service is an error.

export interface LocalServices {
  /** Settings to lay over the environment: the URLs of what was started (or found on a non-default port). */
  env: Record<string, string>;
  /** What was started, for a human reader (scripts/demo.ts). */
  started: string[];
  /** Stops what was started (the service's shutdown, after the context is closed). */
  stop(): Promise<void>;
}

const DEFAULT_POSTGRES_PORT = 5432;
const DEFAULT_REDIS_PORT = 6379;

export async function startLocalServices(env: NodeJS.ProcessEnv, log: Logger): Promise<LocalServices> {
  const config = loadConfig(env);
  const wantPostgres = !env.DATABASE_URL;
  const wantRedis = !env.REDIS_URL;
  const none: LocalServices = { env: {}, started: [], stop: async () => {} };
  if (!wantPostgres && !wantRedis) return none;
  const production = env.NODE_ENV === 'production';
  const dataDir = resolve(config.DATA_DIR);
  const pgPort = config.LOCAL_POSTGRES_PORT;
  const redisPort = config.LOCAL_REDIS_PORT;

  if (!production) await stopLeftovers(dataDir, log);
  const pgUp = wantPostgres && (await answers('127.0.0.1', pgPort));
  const redisUp = wantRedis && (await answers('127.0.0.1', redisPort));
  const startPostgres = wantPostgres && !pgUp;
  const startRedis = wantRedis && !redisUp;

  if (production && (startPostgres || startRedis)) {
    const missing = [
      startPostgres && `DATABASE_URL is not set and nothing answers on 127.0.0.1:${pgPort}`,
      startRedis && `REDIS_URL is not set and nothing answers on 127.0.0.1:${redisPort}`,
    ].filter(Boolean);
    throw new Error(`NODE_ENV=production never starts local services: ${missing.join('; ')}. Set ${[startPostgres && 'DATABASE_URL', startRedis && 'REDIS_URL'].filter(Boolean).join(' and ')} to your servers`);
  }
  const redisServer = startRedis ? findRedisServer() : null;
  if (startRedis && !redisServer) throw new Error(`REDIS_URL is not set and nothing answers on 127.0.0.1:${redisPort}, and ${INSTALL_REDIS}`);

  const out: Record<string, string> = {};
  if (pgUp && pgPort !== DEFAULT_POSTGRES_PORT) out.DATABASE_URL = `postgres://localhost:${pgPort}/voice`;
  if (redisUp && redisPort !== DEFAULT_REDIS_PORT) out.REDIS_URL = `redis://127.0.0.1:${redisPort}`;
  if (!startPostgres && !startRedis) return { ...none, env: out };

  mkdirSync(dataDir, { recursive: true });
  const started: { name: string; server: LocalServer }[] = [];
  let stopping = false;
  const stopAll = async () => {
    stopping = true;
    process.off('exit', killOnExit);
    for (const { server } of [...started].reverse()) await server.stop();
    removeRecord(dataDir);
  };
  // The service exits without its shutdown (a failed start, a crash): the children get their
  // stop signal anyway. A SIGKILLed service leaves them; the next start stops them (stopLeftovers).
  const killOnExit = () => {
    for (const { name, server } of started) server.child.kill(name === 'postgres' ? 'SIGINT' : 'SIGTERM');
  };
  process.on('exit', killOnExit);
  const keep = (name: string, server: LocalServer) => {
    started.push({ name, server });
    server.child.once('exit', (code, signal) => {
      if (!stopping) log.error({ code, signal }, `the ${name} this service started exited while the service runs`);
    });
    writeRecord(dataDir, started.map(({ name: n, server: s }) => ({ name: n, pid: s.child.pid!, marker: s.marker })));
  };
  try {
    if (startPostgres) {
      const pg = await startEmbeddedPostgres(dataDir, pgPort);
      keep('postgres', pg);
      out.DATABASE_URL = pg.url;
      log.info({ url: pg.url, data: resolve(dataDir, 'postgres') }, `DATABASE_URL is not set and nothing answers on 127.0.0.1:${pgPort}: started an embedded Postgres (development only)`);
    }
    if (startRedis) {
      const redis = await startRedisChild(dataDir, redisPort, redisServer!);
      keep('redis-server', redis);
      out.REDIS_URL = redis.url;
      log.info({ url: redis.url, data: resolve(dataDir, 'redis'), bin: redisServer }, `REDIS_URL is not set and nothing answers on 127.0.0.1:${redisPort}: started redis-server (development only)`);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  return { env: out, started: started.map(({ name, server }) => `${name} on ${server.url}`), stop: stopAll };
}

/** Children a killed service process left behind in this DATA_DIR: stopped, so this start owns its services. */
async function stopLeftovers(dataDir: string, log: Logger): Promise<void> {
  const leftovers = leftoverChildren(dataDir);
  for (const child of leftovers) {
    log.warn({ pid: child.pid }, `stopping the ${child.name} a previous service process left running`);
    if (child.name === 'postgres') await stopProcess(child.pid, 'SIGINT', 'SIGQUIT', 15_000);
    else await stopProcess(child.pid, 'SIGTERM', 'SIGKILL', 10_000);
  }
  if (leftovers.length) removeRecord(dataDir);
}
