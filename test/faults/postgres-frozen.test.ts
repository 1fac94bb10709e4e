import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { startOwnPostgres } from '../helpers/own-postgres.js';
import { createTenant, PASSWORD } from '../helpers/fixtures.js';
import { startFaultHarness, timed } from './support.js';
import { FREE_FAILURES_PER_ACCOUNT } from '../../src/control/auth/sign-in-throttle.js';

// A frozen Postgres (SIGSTOP of the test's own server and its backends): connections stay open
// but nothing answers, so without a client-side bound every query on them would wait forever.
// With DATABASE_STATEMENT_TIMEOUT_MS the connection's watchdog cuts a silent connection a
// second after the statement timeout, so the API answers 503 {"detail": ...} within a few
// seconds, and serves again once the server continues (SIGCONT).

const STATEMENT_TIMEOUT_MS = 2000;
/** A hang shows up as this, not as tap's own timeout. */
const HANG_MS = 15_000;
const run = promisify(execFile);
const pg = await startOwnPostgres();

/** The server's postmaster (listening on our port) and its children. */
async function serverPids(): Promise<number[]> {
  const { stdout } = await run('ps', ['-eo', 'pid=,ppid=,args=']);
  const rows = stdout.trim().split('\n').map((l) => l.trim().split(/\s+/, 3)).map(([pid, ppid, args]) => ({ pid: Number(pid), ppid: Number(ppid), args: args ?? '' }));
  const all = stdout.trim().split('\n').map((l) => l.trim());
  const master = rows.find((r, i) => /postgres$/.test(r.args) && all[i].includes(`-p ${pg.port}`));
  if (!master) throw new Error(`no postmaster on port ${pg.port}`);
  return [master.pid, ...rows.filter((r) => r.ppid === master.pid).map((r) => r.pid)];
}

let frozen: number[] = [];
const resume = () => {
  for (const pid of frozen) process.kill(pid, 'SIGCONT');
  frozen = [];
};
const { h } = await startFaultHarness({ start: pg.start, resume, close: pg.close }, { databaseBase: pg.base, env: { DATABASE_STATEMENT_TIMEOUT_MS: String(STATEMENT_TIMEOUT_MS) } });

const within = <T>(work: Promise<T>) =>
  Promise.race([work, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS))]);

t.test('frozen Postgres: 503 within a few seconds, served again after SIGCONT', async (t) => {
  const tenant = await createTenant(h);
  const read = () => h.app.inject({ method: 'GET', url: `/console/v2/projects/${tenant.projectId}/voice/sessions`, headers: tenant.bearer });
  const machineRead = () => h.app.inject({ method: 'GET', url: '/v2/voice/sessions', headers: tenant.machine });
  const login = () => h.app.inject({ method: 'POST', url: '/console/auth/login', payload: { email: tenant.email, password: PASSWORD } });
  // Warm the pool: the connections that will be open when the server freezes.
  await Promise.all(Array.from({ length: 10 }, () => read()));
  t.equal((await read()).statusCode, 200);

  frozen = await serverPids();
  for (const pid of frozen) process.kill(pid, 'SIGSTOP');
  t.teardown(resume);

  const figures: Record<string, number> = {};
  for (const [name, probe] of Object.entries({ read, machineRead, login, readAgain: read })) {
    const r = await within(timed(probe));
    figures[name] = Math.round(r.ms);
    t.equal(r.value.statusCode, 503, `${name}: 503 while the server is frozen`);
    t.same(r.value.json(), { detail: 'database unavailable, retry later' }, `${name}: the error shape`);
    t.ok(r.value.headers['retry-after'], `${name}: Retry-After`);
  }
  // Concurrent requests too: none left hanging on a frozen connection.
  const burst = await within(Promise.all(Array.from({ length: 12 }, () => read())));
  // Sign-ins the database could not judge are no failures: more of them than the free allowance
  // leave the account's throttle as it was (no count, no lock).
  for (let i = 0; i < FREE_FAILURES_PER_ACCOUNT + 2; i++) t.equal((await within(login())).statusCode, 503);
  const throttle = await h.ctx.redis.keys(`${h.ctx.redisPrefix}{signin}:*acct*`);
  t.notOk(throttle.some((k) => k.includes(':lock:')), 'the account is not locked');
  const counts = await Promise.all(throttle.map((k) => h.ctx.redis.get(k)));
  t.ok(counts.every((n) => Number(n) === 0), `no failed sign-in counted for the account (${counts.join(',') || 'none'})`);
  t.same([...new Set(burst.map((r) => r.statusCode))], [503], 'a burst of 12 reads: all 503');
  t.comment(`answer times while frozen (ms), statement timeout ${STATEMENT_TIMEOUT_MS}: ${JSON.stringify(figures)}`);

  resume();
  let back = await read();
  for (let i = 0; i < 50 && back.statusCode !== 200; i++) {
    await new Promise((r) => setTimeout(r, 200));
    back = await read();
  }
  t.equal(back.statusCode, 200, 'served again once the server continues');
  t.equal((await login()).statusCode, 200, 'and a login works (the 503s did not count as failed sign-ins)');
});
