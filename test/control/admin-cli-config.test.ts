import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';

// The admin CLI reads the service's configuration (environment over .env) and never creates or
// migrates a database: a wrong DATABASE_URL is an error naming the database, not a new one.
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '..', '..');
const h = await startHarness();
t.teardown(h.close);
const base = new URL(h.ctx.config.DATABASE_URL);
const keyring = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
const cleanEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'ENV_FILE'].includes(k)));
const admin = (cwd: string, env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [`--import=${import.meta.resolve('tsx')}`, join(root, 'src/cli/admin.ts'), ...args], { cwd, env: { ...cleanEnv, LOG_LEVEL: 'silent', KEYRING: keyring, ...env } });

const databaseExists = async (name: string) => {
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  const sql = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
  try {
    return (await sql`select 1 from pg_database where datname = ${name}`).length > 0;
  } finally {
    await sql.end({ timeout: 1 });
  }
};

t.test('a database that does not exist is named in the error and not created', async (t) => {
  const missing = `voice_missing_${process.pid}`;
  const url = new URL(base);
  url.pathname = `/${missing}`;
  const cwd = mkdtempSync(join(tmpdir(), 'admin-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  await t.rejects(admin(cwd, { DATABASE_URL: url.toString() }, 'wallet-credit', '--project-id', '00000000-0000-4000-8000-000000000000', '--nano-usd', '5'), {
    code: 1,
    stderr: new RegExp(`database "${missing}" not found on .*never creates one`),
  });
  t.equal(await databaseExists(missing), false, 'no database was created');
});

t.test('DATABASE_URL comes from .env in the working directory, and the environment overrides it', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'admin-'));
  t.teardown(() => rmSync(cwd, { recursive: true, force: true }));
  writeFileSync(join(cwd, '.env'), `# the service's settings\nDATABASE_URL=${base.toString()}\n`);
  const out = JSON.parse((await admin(cwd, {}, 'create-account', '--email', 'env-file@example.com', '--password', 'a long password 123')).stdout);
  t.match(out.account_id, /^[0-9a-f-]{36}$/);
  const [row] = await h.ctx.sql`select email from accounts where id = ${out.account_id}`;
  t.equal(row?.email, 'env-file@example.com', 'the account landed in the database the .env file names');

  const elsewhere = new URL(base);
  elsewhere.pathname = `/voice_missing_env_${process.pid}`;
  await t.rejects(admin(cwd, { DATABASE_URL: elsewhere.toString() }, 'verify-email', '--email', 'env-file@example.com'), { code: 1, stderr: /not found/ }, 'the environment wins over .env');
});

t.test('an unmigrated database is refused, not migrated', async (t) => {
  const name = `voice_unmigrated_${process.pid}`;
  const adminUrl = new URL(base);
  adminUrl.pathname = '/postgres';
  const sql = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
  await sql.unsafe(`create database "${name}"`);
  t.teardown(async () => {
    await sql.unsafe(`drop database if exists "${name}" with (force)`);
    await sql.end({ timeout: 1 });
  });
  const url = new URL(base);
  url.pathname = `/${name}`;
  await t.rejects(admin(root, { DATABASE_URL: url.toString() }, 'verify-email', '--email', 'x@example.com'), { code: 1, stderr: /is not migrated .*start the service once/ });
  const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const [reg] = await db`select to_regclass('schema_migrations') as name`;
  await db.end({ timeout: 1 });
  t.equal(reg.name, null, 'nothing was migrated');
});
