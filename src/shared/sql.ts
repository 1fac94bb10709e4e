import postgres from 'postgres';

export type Sql = postgres.Sql<{ bigint: bigint }>;
/** A transaction (the callback argument of `sql.begin`): statements that must commit together take this. */
export type Tx = postgres.TransactionSql<{ bigint: bigint }>;
/** The pool or a transaction: repository functions that may run inside one or alone take this. */
export type Db = Sql | Tx;

/** Bigints (money in nano-USD, counters) come back as JS bigint, never as floats. */
export function createSql(url: string, max = 10): Sql {
  return postgres(url, {
    max,
    onnotice: () => {},
    types: { bigint: postgres.BigInt },
    connection: { application_name: 'voice-agent-service' },
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
