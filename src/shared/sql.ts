import postgres from 'postgres';
import { watchedSocketFactory } from './pg-watchdog.js';

export type Sql = postgres.Sql<{ bigint: bigint }>;
/** A transaction (the callback argument of `sql.begin`): statements that must commit together take this. */
export type Tx = postgres.TransactionSql<{ bigint: bigint }>;
/** The pool or a transaction: repository functions that may run inside one or alone take this. */
export type Db = Sql | Tx;

/**
 * Bigints (money in nano-USD, counters) come back as JS bigint, never as floats. A connection
 * that cannot be made within `connectTimeoutMs` fails its queries (postgres.js waits 30 s by
 * default), so an unreachable database answers 503 instead of holding requests.
 */
export function createSql(url: string, opts: { max?: number; connectTimeoutMs?: number; statementTimeoutMs?: number } = {}): Sql {
  const connectTimeoutMs = opts.connectTimeoutMs ?? 30_000;
  const statementTimeoutMs = opts.statementTimeoutMs ?? 0;
  return postgres(url, {
    max: opts.max ?? 10,
    connect_timeout: connectTimeoutMs / 1000,
    // With a statement timeout: a live server cancels a statement running longer (57014), and a
    // server that stops answering altogether (frozen) has its connection cut a second later by
    // the client's watchdog (ETIMEDOUT: 503 on the api), see pg-watchdog.ts.
    ...(statementTimeoutMs > 0 ? { socket: watchedSocketFactory(statementTimeoutMs + 1000) } : {}),
    // Seconds before a failed connection is tried again. postgres.js's default grows to 20 s
    // after a few failures, and queries wait for it: a 5 s outage then kept the pool (and every
    // request) waiting up to 20 s more. Capped at half a second: errors stay fast, recovery prompt.
    backoff: (retries: number) => Math.min(0.05 * 2 ** retries, 0.5),
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    connection: { application_name: 'voice-agent-service', ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}) },
  });
}

/** Creates the database named in `url` when it does not exist yet. */
export async function ensureDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (!name) throw new Error('DATABASE_URL names no database');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    const found = await sql`select 1 from pg_database where datname = ${name}`;
    if (found.length === 0) {
      try {
        await sql.unsafe(`create database "${name.replace(/"/g, '""')}"`);
      } catch (err) {
        // Another process created it between our check and our create.
        if ((err as { code?: string }).code !== '42P04') throw err;
      }
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Drops a database (tests only). */
export async function dropDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const sql = postgres(admin.toString(), { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`drop database if exists "${name.replace(/"/g, '""')}" with (force)`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}
