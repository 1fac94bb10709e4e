// postgres.js 3.4.9 can send a transaction's BEGIN without reserving its connection (when the
// BEGIN fills the connection's pipeline): the transaction fails with UNSAFE_TRANSACTION and stays
// open on a connection back in the pool, where unrelated queries then run inside it. Seen as
// "media activation failed" for one session in several hundred under load. The driver is patched
// at install (patches/postgres+3.4.9.patch, applied by the postinstall script); these tests fail
// without the patch.
import t from 'tap';
import postgres from 'postgres';

const URL = `${process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432'}/postgres`;

/** A pool of `max` connections, each taking `maxPipeline` queries in flight (an option the driver's types leave out). */
function pool(max: number, maxPipeline: number) {
  return postgres(URL, { max, onnotice: () => {}, ...({ max_pipeline: maxPipeline } as object) });
}

t.test('a BEGIN that fills a busy connection pipeline reserves that connection', async (t) => {
  const sql = pool(2, 1);
  t.teardown(() => sql.end({ timeout: 5 }));
  await Promise.all([sql`select 1`, sql`select 1`]); // both connections open
  // Both connections busy, so the BEGIN is pipelined behind one of them, filling it.
  const sleeps = [sql`select pg_sleep(0.2)`.execute(), sql`select pg_sleep(0.2)`.execute()];
  const rows = await sql.begin((tx) => tx`select 1 as one`);
  await Promise.all(sleeps);
  t.same([...rows], [{ one: 1 }]);
});

t.test('with max_pipeline 0 transactions still work', async (t) => {
  const sql = pool(4, 0);
  t.teardown(() => sql.end({ timeout: 5 }));
  const rows = await sql.begin((tx) => tx`select 1 as one`);
  t.same([...rows], [{ one: 1 }]);
});

t.test('transactions and plain queries racing for a small pool never share a transaction', async (t) => {
  const sql = pool(3, 2);
  t.teardown(() => sql.end({ timeout: 5 }));
  let failures = 0;
  let insideAnother = 0;
  for (let round = 0; round < 20; round++) {
    const busy = [0, 1, 2].map(() => sql`select pg_sleep(0.05)`.execute());
    // Each transaction marks itself (a setting local to it); a plain query that runs inside one sees the mark.
    const plain = () => sql`select current_setting('application_name') <> 'in-tx' as own`.execute();
    const before = [plain(), plain(), plain()]; // one pipelined on each busy connection: the next query fills it
    const txs = Array.from({ length: 5 }, () =>
      sql.begin(async (tx) => {
        await tx`select set_config('application_name', 'in-tx', true)`;
        await tx`select pg_sleep(0.01)`;
        return tx`select 1 as one`;
      }),
    );
    const after = [plain(), plain(), plain()];
    const settled = await Promise.allSettled([...busy, ...before, ...after, ...txs]);
    failures += settled.filter((s) => s.status === 'rejected').length;
    for (const s of settled.slice(3, 9)) if (s.status === 'fulfilled' && !s.value[0].own) insideAnother++;
  }
  t.equal(failures, 0, 'no query or transaction failed');
  t.equal(insideAnother, 0, 'no plain query ran inside a transaction');
});
