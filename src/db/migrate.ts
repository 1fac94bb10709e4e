import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from '../shared/sql.js';

// Numbered SQL files (NNNN_name.sql) applied in order, in one transaction, under an advisory
// lock so that several processes starting at once migrate exactly once.
const LOCK_ID = 727_274_001;
/**
 * A migration that adds triggers or columns takes table locks that running nodes' transactions
 * (an older version during a rolling upgrade) may hold in the other order: Postgres aborts one
 * side as a deadlock. The whole transaction rolled back, so it is simply run again.
 */
const RETRYABLE = new Set(['40P01', '40001', '55P03']); // deadlock, serialization failure, lock not available
const ATTEMPTS = 5;

/** The migrations folder, both when run from src (tsx) and from dist (compiled). */
export function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'src', 'db', 'migrations');
    dir = dirname(dir);
  }
  throw new Error('cannot find the project root to locate migrations');
}

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function readMigrations(dir = migrationsDir()): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d{4}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 4)), name: f, sql: readFileSync(join(dir, f), 'utf8') }));
}

export async function migrate(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await migrateOnce(sql, migrations);
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (attempt >= ATTEMPTS || !code || !RETRYABLE.has(code)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100 * 2 ** attempt * (0.5 + Math.random())));
    }
  }
}

async function migrateOnce(sql: Sql, migrations: Migration[]): Promise<string[]> {
  const applied: string[] = [];
  await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${LOCK_ID})`;
    await tx`create table if not exists schema_migrations (
      version integer primary key, name text not null, applied_at timestamptz not null default now())`;
    const done = new Set((await tx`select version from schema_migrations`).map((r) => r.version as number));
    for (const m of migrations) {
      if (done.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`insert into schema_migrations (version, name) values (${m.version}, ${m.name})`;
      applied.push(m.name);
    }
  });
  return applied;
}

/** Migrations not applied yet (all of them when the database was never migrated). */
export async function pendingMigrations(sql: Sql, migrations = readMigrations()): Promise<string[]> {
  const [table] = await sql`select to_regclass('schema_migrations') as name`;
  if (!table?.name) return migrations.map((m) => m.name);
  const done = new Set((await sql`select version from schema_migrations`).map((r) => r.version as number));
  return migrations.filter((m) => !done.has(m.version)).map((m) => m.name);
}
