import t from 'tap';
import { harnessOnOwnRedis } from '../helpers/own-redis.js';
import { FREE_FAILURES_PER_ACCOUNT, FREE_FAILURES_PER_ADDRESS, SIGNUPS_PER_ADDRESS_PER_HOUR } from '../../src/control/auth/sign-in-throttle.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { ConcurrencyGate } from '../../src/shared/concurrency-gate.js';

// Logins and sign-ups are throttled per account and per client address with back-off (429 and
// Retry-After, before any password hashing), a success clears the account's count, and the
// throttle fails open when its Redis is gone so people can still sign in.

const { h, redis } = await harnessOnOwnRedis();
const password = 'a long password 123';
await createAccount(h.ctx, 'owner@example.com', password);
await createAccount(h.ctx, 'other@example.com', password);

const login = (email: string, pw: string, remoteAddress = '203.0.113.1') =>
  h.app.inject({ method: 'POST', url: '/console/auth/login', payload: { email, password: pw }, remoteAddress });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('failures past the allowance lock the account with doubling back-off; a success clears it', async (t) => {
  for (let i = 0; i < FREE_FAILURES_PER_ACCOUNT; i++) t.equal((await login('owner@example.com', 'wrong')).statusCode, 401);
  t.equal((await login('owner@example.com', 'wrong')).statusCode, 401, 'the failure past the allowance is still judged');
  const locked = await login('owner@example.com', password);
  t.equal(locked.statusCode, 429, 'then even the right password waits out the lock');
  t.equal(locked.headers['retry-after'], '1');
  t.same(locked.json(), { detail: 'too many failed sign-ins; retry later' });
  t.equal((await login('owner@example.com', password, '198.51.100.7')).statusCode, 429, 'the account lock holds from any address');
  t.equal((await login('other@example.com', password)).statusCode, 200, 'another account from the same address is not locked');

  await sleep(1100);
  // The 2 s lock begins inside the next call, before its password hashing, which can take over a
  // second on a loaded machine; Retry-After is what is left of it, rounded up.
  const t0 = Date.now();
  t.equal((await login('owner@example.com', 'wrong')).statusCode, 401);
  const longer = await login('owner@example.com', password);
  const took = Date.now() - t0;
  t.equal(longer.statusCode, 429);
  const retry = longer.headers['retry-after'];
  if (took < 1000) t.equal(retry, '2', 'the next lock is twice as long');
  else t.ok(retry === '1' || retry === '2', `the next lock is twice as long (Retry-After ${retry}, ${took} ms after it began)`);

  await sleep(2100);
  t.equal((await login('owner@example.com', password)).statusCode, 200, 'the right password works once the lock ends');
  t.equal((await login('owner@example.com', 'wrong')).statusCode, 401);
  t.equal((await login('owner@example.com', password)).statusCode, 200, 'after a success the allowance starts again');
});

t.test('an address guessing across many accounts is locked', async (t) => {
  const address = '192.0.2.50';
  for (let i = 0; i < FREE_FAILURES_PER_ADDRESS; i++) t.equal((await login(`nobody${i}@example.com`, 'wrong', address)).statusCode, 401);
  t.equal((await login('nobody-last@example.com', 'wrong', address)).statusCode, 401);
  const res = await login('other@example.com', password, address);
  t.equal(res.statusCode, 429, 'the address is locked, whatever account it tries');
  t.equal((await login('other@example.com', password, '192.0.2.51')).statusCode, 200, 'other addresses are not');
});

t.test('sign-ups are capped per address per hour', async (t) => {
  const address = '192.0.2.80';
  const signup = (i: number, remoteAddress = address) =>
    h.app.inject({ method: 'POST', url: '/console/auth/signup', payload: { email: `new${i}-${remoteAddress}@example.com`, password }, remoteAddress });
  for (let i = 0; i < SIGNUPS_PER_ADDRESS_PER_HOUR; i++) t.equal((await signup(i)).statusCode, 201);
  const over = await signup(99);
  t.equal(over.statusCode, 429);
  t.ok(Number(over.headers['retry-after']) > 3000, 'Retry-After runs to the end of the hour window');
  t.equal((await signup(100, '192.0.2.81')).statusCode, 201, 'another address may sign up');
});

t.test('with its Redis down the throttle lets sign-ins through', async (t) => {
  await redis.stop();
  const res = await login('other@example.com', password, '192.0.2.99');
  t.equal(res.statusCode, 200);
  t.equal((await login('other@example.com', 'wrong', '192.0.2.99')).statusCode, 401);
  await redis.start();
});

t.test('the hashing gate runs earlier lanes first and bounds the queues', async (t) => {
  const gate = new ConcurrencyGate<'first' | 'second'>([{ name: 'first', slots: 1, queue: 2 }, { name: 'second', slots: 1, queue: 1 }], 8);
  const order: string[] = [];
  let release!: () => void;
  const blocker = gate.run('first', () => new Promise<void>((r) => (release = r)));
  const second = gate.run('second', async () => void order.push('second'));
  await t.rejects(gate.run('second', async () => {}), { message: 'second lane full', lane: 'second' }, 'the second lane holds one waiter');
  const first = gate.run('first', async () => void order.push('first'));
  release();
  await Promise.all([blocker, second, first]);
  t.same(order, ['first', 'second'], 'a first-lane request queued later still runs first');
});

t.test('the second lane never holds the slots the first lane needs', async (t) => {
  const gate = new ConcurrencyGate<'first' | 'second'>([{ name: 'first', slots: 2, queue: 4 }, { name: 'second', slots: 1, queue: 4 }], 8);
  const releases: (() => void)[] = [];
  const hold = (lane: 'first' | 'second', tag: string, log: string[]) => gate.run(lane, () => new Promise<void>((r) => releases.push(() => (log.push(tag), r()))));
  const log: string[] = [];
  const s1 = hold('second', 's1', log);
  const s2 = gate.run('second', async () => void log.push('s2'));
  const f1 = gate.run('first', async () => void log.push('f1'));
  await f1;
  t.same(log, ['f1'], 'a first-lane request runs at once while one guess holds a slot and another waits');
  releases[0]();
  await Promise.all([s1, s2]);
  t.same(log, ['f1', 's1', 's2']);
});
