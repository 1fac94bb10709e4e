// A migration that meets a running node's transaction holding its tables in the other order
// (a rolling upgrade) is aborted by Postgres as a deadlock; migrate() runs it again.
import { randomBytes } from 'node:crypto';
import t from 'tap';
import postgres from 'postgres';
import { migrate, type Migration } from '../../src/db/migrate.js';
import { dropDatabase, ensureDatabase, type Sql } from '../../src/shared/sql.js';

const BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';

t.test('a migration aborted as a deadlock is run again and applied once', async (t) => {
  const url = `${BASE}/voice_test_migrate_${process.pid}_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(url);
  // The migration's session, which waits last but checks after 100 ms (the node after 10 s),
  // detects the deadlock, so it is the side Postgres aborts.
  const migrator = postgres(url, { max: 1, onnotice: () => {}, connection: { deadlock_timeout: '100ms' } }) as unknown as Sql;
  const node = postgres(url, { max: 1, onnotice: () => {}, connection: { deadlock_timeout: '10s' } });
  t.teardown(async () => {
    await migrator.end({ timeout: 5 });
    await node.end({ timeout: 5 });
    await dropDatabase(url);
  });
  await node`create table sessions (id int)`;
  await node`create table wallets (id int)`;

  // The node: sessions first, then wallets (as settlement does).
  let nodeHolds!: () => void;
  const holding = new Promise<void>((resolve) => (nodeHolds = resolve));
  const nodeTx = node.begin(async (tx) => {
    await tx`lock table sessions in row exclusive mode`;
    nodeHolds();
    await tx`select pg_sleep(0.1)`;
    await tx`lock table wallets in row exclusive mode`;
    await tx`insert into wallets values (1)`;
  });
  await holding;
  // The migration: wallets first, then sessions once the node waits for wallets.
  const migrations: Migration[] = [
    { version: 1, name: '0001_counter.sql', sql: 'lock table wallets in access exclusive mode; alter table wallets add column live int; select pg_sleep(0.3); lock table sessions in access exclusive mode; alter table sessions add column settled boolean;' },
  ];
  const applied = await migrate(migrator, migrations);
  await nodeTx;

  t.same(applied, ['0001_counter.sql'], 'applied on a later attempt');
  const rows = await node`select version from schema_migrations`;
  t.same(rows.map((r) => r.version), [1], 'recorded once');
  const cols = await node`select table_name, column_name from information_schema.columns where column_name in ('live', 'settled') order by 1`;
  t.same(cols.map((c) => `${c.table_name}.${c.column_name}`), ['sessions.settled', 'wallets.live'], 'both tables changed');
  t.same((await node`select id from wallets`).map((r) => r.id), [1], "the node's transaction committed");
  t.same(await migrate(migrator, migrations), [], 'nothing left to apply');
});

t.test('an error that is not a lock conflict is not retried', async (t) => {
  const url = `${BASE}/voice_test_migrate_${process.pid}_${randomBytes(4).toString('hex')}`;
  await ensureDatabase(url);
  const sql = postgres(url, { max: 1, onnotice: () => {} }) as unknown as Sql;
  t.teardown(async () => {
    await sql.end({ timeout: 5 });
    await dropDatabase(url);
  });
  const started = Date.now();
  await t.rejects(migrate(sql, [{ version: 1, name: '0001_bad.sql', sql: 'alter table missing add column x int' }]), { code: '42P01' });
  t.ok(Date.now() - started < 1000, 'failed at once, without back-off');
  t.same((await sql`select to_regclass('schema_migrations') as t`)[0].t, null, 'rolled back whole: nothing recorded');
});
