import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { ADDRESS_ATTEMPTS_BEFORE_SUSPECT, FREE_FAILURES_PER_ACCOUNT, FREE_FAILURES_PER_DEVICE, recordSignInSuccess, startSignIn } from '../../src/control/auth/sign-in-throttle.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { ConcurrencyGate } from '../../src/shared/concurrency-gate.js';

// A legitimate login is told apart from a flood of guesses by what a guesser lacks (the device
// cookie its account gave this browser, or an address it signed in from before): it hashes ahead
// of the guesses, a device is judged by its own failures only (so guesses from elsewhere cannot
// lock its owner out), and guesses that cannot wait their turn are refused with 429 + Retry-After.

const h = await startHarness();
t.teardown(() => h.close());
const password = 'a long password 123';
await createAccount(h.ctx, 'owner@example.com', password);
await createAccount(h.ctx, 'neighbour@example.com', password);

const login = (email: string, pw: string, remoteAddress: string, cookie?: string) =>
  h.app.inject({ method: 'POST', url: '/console/auth/login', payload: { email, password: pw }, remoteAddress, headers: cookie ? { cookie } : {} });

/** Logs in once and returns the `name=value` part of the device cookie the answer set. */
async function deviceCookie(email: string, remoteAddress: string): Promise<string> {
  const res = await login(email, password, remoteAddress);
  const header = String(res.headers['set-cookie'] ?? '');
  return header.split(';')[0];
}

t.test('a successful login gives the browser a device cookie for that account', async (t) => {
  const res = await login('owner@example.com', password, '203.0.113.10');
  t.equal(res.statusCode, 200);
  const cookie = String(res.headers['set-cookie']);
  t.match(cookie, /^vc_device=[^;]+; Path=\/console\/auth\/login; Max-Age=\d+; HttpOnly; SameSite=Strict$/);
  t.notMatch(cookie, /Secure/, 'plain http (tests) gets no Secure flag');
  t.equal((await login('owner@example.com', 'wrong', '203.0.113.10')).headers['set-cookie'], undefined, 'a failure sets none');
});

t.test('a device cookie lets its owner in while guesses from elsewhere have locked the account', async (t) => {
  const cookie = await deviceCookie('owner@example.com', '203.0.113.20');
  const neighbourCookie = await deviceCookie('neighbour@example.com', '203.0.113.20');
  for (let i = 0; i <= FREE_FAILURES_PER_ACCOUNT; i++) t.equal((await login('owner@example.com', 'wrong', '198.51.100.20')).statusCode, 401);
  // The lock is 1 s long; the next two calls answer before any hashing of their own is needed to pass it.
  t.equal((await login('owner@example.com', password, '203.0.113.21')).statusCode, 429, 'without the cookie the account is locked');
  t.equal((await login('owner@example.com', password, '203.0.113.20', neighbourCookie)).statusCode, 429, "another account's cookie does not open it");
  t.equal((await login('owner@example.com', password, '203.0.113.20', `vc_device=forged${cookie.slice(12)}`)).statusCode, 429, 'nor does a forged one');
  const own = await login('owner@example.com', password, '203.0.113.20', cookie);
  t.equal(own.statusCode, 200, 'the owner with its device cookie gets in');
});

t.test('sign-ins are sorted by what a guesser lacks', async (t) => {
  const email = 'sorted@example.com';
  const home = '192.0.2.1';
  const first = await startSignIn(h.ctx, email, home);
  t.equal(first.lane, 'unknown', 'no history either way');
  await recordSignInSuccess(h.ctx, first);
  const back = await startSignIn(h.ctx, email, home);
  t.same([back.basis, back.lane], ['address', 'trusted'], 'an address that signed in before is trusted');
  await recordSignInSuccess(h.ctx, back);
  t.equal((await startSignIn(h.ctx, email, '192.0.2.2')).lane, 'unknown', 'another address is not');
  t.equal((await startSignIn(h.ctx, email, '192.0.2.3')).lane, 'suspect', 'and with a failed attempt on the account, the next is suspect');
  t.equal((await startSignIn(h.ctx, email, home)).lane, 'trusted', 'while the account is guessed at, its known address stays trusted');
  t.equal((await startSignIn(h.ctx, email, home)).lane, 'suspect', 'until a failure comes from that address itself');
});

t.test('people behind one address may sign in at once; past a few unfinished attempts the address is suspect', async (t) => {
  const office = '192.0.2.200';
  for (let i = 0; i < ADDRESS_ATTEMPTS_BEFORE_SUSPECT; i++) t.equal((await startSignIn(h.ctx, `colleague${i}@example.com`, office)).lane, 'unknown');
  t.equal((await startSignIn(h.ctx, 'colleague-next@example.com', office)).lane, 'suspect');
});

t.test('a device is trusted until its own failures pass the allowance', async (t) => {
  await createAccount(h.ctx, 'device@example.com', password);
  const cookie = await deviceCookie('device@example.com', '203.0.113.30');
  for (let i = 0; i < FREE_FAILURES_PER_DEVICE; i++) {
    const s = await startSignIn(h.ctx, 'device@example.com', `203.0.113.${31 + i}`, cookie);
    t.same([s.basis, s.lane], ['device', 'trusted'], `attempt ${i + 1} from the device is trusted, from any address`);
  }
  const after = await startSignIn(h.ctx, 'device@example.com', '203.0.113.40', cookie);
  t.not(after.basis, 'device', 'past its allowance the device is like any other client');
});

t.test('a known client hashes ahead of a queue of guesses, and guesses that cannot wait are shed with 429', async (t) => {
  const cookie = await deviceCookie('neighbour@example.com', '203.0.113.50');
  const finished: string[] = [];
  let comeBack: Promise<string> | undefined;
  const guesses = Array.from({ length: 40 }, (_, i) =>
    login(`nobody${i}@example.com`, 'wrong', `198.18.7.${i + 1}`).then((res) => {
      if (res.statusCode === 401) finished.push('guess');
      // The first guess refused comes straight back, before its Retry-After is over.
      if (res.statusCode === 429) comeBack ??= startSignIn(h.ctx, `other${i}@example.com`, `198.18.7.${i + 1}`).then((s) => s.lane);
      return res;
    }),
  );
  const known = login('neighbour@example.com', password, '203.0.113.50', cookie).then((res) => {
    finished.push('known');
    return res;
  });
  const answers = await Promise.all(guesses);
  t.equal((await known).statusCode, 200);

  const shed = answers.filter((r) => r.statusCode === 429);
  t.equal(shed.length + answers.filter((r) => r.statusCode === 401).length, 40, 'every guess is judged or shed, none fails');
  // One slot and 16 places (for at most 2 s) serve clients with no history: of 40 at once, most cannot wait.
  t.ok(shed.length >= 10, `the queue is bounded (${shed.length} of 40 shed)`);
  for (const r of shed) {
    t.equal(r.headers['retry-after'], '1');
    t.same(r.json(), { detail: 'too many sign-ins in progress; retry shortly' });
  }
  const before = finished.indexOf('known');
  const judged = finished.length - 1;
  // It hashes next to the guess already running instead of after those queued before it.
  t.ok(before <= 2, `the known client finished after ${before} of the ${judged} judged guesses, not behind the queue`);
  t.ok(judged > before, 'guesses queued before it were still waiting when it finished');

  const i = answers.findIndex((r) => r.statusCode === 429);
  const again = await startSignIn(h.ctx, `nobody${i}@example.com`, '198.18.8.1');
  t.equal(again.lane, 'unknown', 'a shed guess is not counted as a failure of its account');
  t.equal(await comeBack, 'suspect', 'but its address, back before its Retry-After, is suspect');
});

t.test('the gate bounds its total queue by shedding the latest lane first', async (t) => {
  type L = 'a' | 'b' | 'c';
  const gate = new ConcurrencyGate<L>([{ name: 'a', slots: 1, queue: 4 }, { name: 'b', slots: 1, queue: 4 }, { name: 'c', slots: 1, queue: 4 }], 2);
  const order: string[] = [];
  let release!: () => void;
  const blocker = gate.run('a', () => new Promise<void>((r) => (release = r)));
  const c1 = gate.run('c', async () => void order.push('c1'));
  const c2 = gate.run('c', async () => void order.push('c2'));
  const a2 = gate.run('a', async () => void order.push('a2'));
  await t.rejects(c2, { message: 'c lane full', lane: 'c' }, 'a newcomer of an earlier lane sheds the newest waiter of the latest lane');
  const b1 = gate.run('b', async () => void order.push('b1'));
  await t.rejects(c1, { message: 'c lane full', lane: 'c' }, 'and the next one the next');
  await t.rejects(gate.run('c', async () => {}), { message: 'c lane full', lane: 'c' }, 'with nothing behind it to shed, a newcomer is refused at once');
  t.same(gate.queued(), { a: 1, b: 1, c: 0 });
  release();
  await Promise.all([blocker, a2, b1]);
  t.same(order, ['a2', 'b1']);
});

t.test('a waiter is shed once it has waited past its lane limit', async (t) => {
  const gate = new ConcurrencyGate<'a' | 'b'>([{ name: 'a', slots: 1, queue: 4 }, { name: 'b', slots: 1, queue: 4, maxWaitMs: 20 }], 8);
  let release!: () => void;
  const blocker = gate.run('a', () => new Promise<void>((r) => (release = r)));
  const ran: string[] = [];
  const a2 = gate.run('a', async () => void ran.push('a2'));
  await t.rejects(gate.run('b', async () => void ran.push('b')), { message: 'b lane full', lane: 'b' }, 'the waiting guess is shed, not kept');
  t.same(gate.queued(), { a: 1, b: 0 }, 'and leaves the queue; waiters without a limit stay');
  release();
  await Promise.all([blocker, a2]);
  t.same(ran, ['a2']);
});
