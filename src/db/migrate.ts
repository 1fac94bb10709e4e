import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from '../shared/sql.js';

// Numbered SQL files (NNNN_name.sql) applied in order, each in its own transaction, under
// an advisory lock so that several processes starting at once migrate exactly once.
const LOCK_ID = 727_274_001;

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
