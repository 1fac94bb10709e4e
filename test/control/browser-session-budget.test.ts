import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { ManualClock } from '../../src/shared/clock.js';
import { sweepOnce } from '../../src/sessions/sweepers.js';
import { countKeySlots, countSlots } from '../../src/sessions/slots.js';
import { keySlotKey } from '../../src/sessions/slot-layout.js';
import { holdFor } from '../../src/contract/money.js';
import { readWallet } from '../../src/db/repos/wallet.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';

// Issue 16 item 4: a public page cannot squat its project. Browser sessions count against their
// key's own budget (default 5 of the project's 10), their ws_url lives the key's connect window,
// and one never connected is ended by the sweeper (failed / not_connected), giving back its
// project slot, its key slot and its hold. Time is moved with a manual clock; Redis and Postgres
// are the real ones.

const clock = new ManualClock(Date.now());
const h = await startHarness({ clock });
t.teardown(h.close);
const tenant = await createTenant(h);
const { agentId } = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1_000n * MINUTE_NANO);

const ORIGIN = 'https://shop.example.com';
const mint = async (body: object = {}) => {
  const res = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${tenant.projectId}/publishable-keys`,
    headers: tenant.bearer,
    payload: { name: 'shop', origins: [ORIGIN], ...body },
  });
  return res.json() as { id: string; key: string };
};
const browser = (key: string, address: string) =>
  h.app.inject({ method: 'POST', url: '/v2/browser/sessions', headers: { 'x-publishable-key': key, origin: ORIGIN }, payload: { agent_id: agentId }, remoteAddress: address });
const row = async (id: string) => (await h.ctx.sql`select * from voice_sessions where id = ${id}`)[0];
const held = async () => (await readWallet(h.ctx.sql, tenant.projectId))!.held;

t.test('ten never-connected sessions a minute from one address cannot hold the project', async (t) => {
  const key = await mint();
  const statuses: number[] = [];
  const created: string[] = [];
  for (let i = 0; i < 10; i++) {
    const res = await browser(key.key, '198.51.100.7'); // one address: its 10 a minute all pass the rate limit
    statuses.push(res.statusCode);
    if (res.statusCode === 201) {
      created.push(res.json().session.id);
      t.equal(res.json().expires_in_seconds, 15, 'the ws_url lives the connect window');
      t.equal(res.json().session.max_duration_seconds, 300, "the key's max duration");
    } else {
      t.same(res.json(), { detail: 'concurrency limit reached' });
      t.ok(Number(res.headers['retry-after']) >= 1, 'Retry-After');
    }
  }
  t.same(statuses, [...Array(5).fill(201), ...Array(5).fill(429)], "the key's budget (5) stops it, not the project's (10)");
  t.equal(await countKeySlots(h.ctx, key.id), 5);
  t.equal(await held(), 5n * holdFor(300), "each hold is sized by the key's 300 s, not the default 600 s");

  // The owner's own admission still gets in: the project has 5 of its 10 slots free.
  const own = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agentId } });
  t.equal(own.statusCode, 201, 'the owner is not locked out');
  t.equal(await countSlots(h.ctx, tenant.projectId), 6);

  // The connect window passes: the sweeper ends the browser sessions, not the owner's (60 s ws_url).
  clock.advance(14_000);
  t.same(await sweepOnce(h.ctx), { expired: 0, orphaned: 0 }, 'still inside the window');
  clock.advance(1_000);
  t.same(await sweepOnce(h.ctx), { expired: 5, orphaned: 0 });
  for (const id of created) t.match(await row(id), { status: 'failed', end_reason: 'not_connected', cost_nano_usd: 0n, publishable_key_id: key.id });
  t.equal(await countKeySlots(h.ctx, key.id), 0, "the key's slots are back");
  t.equal(await countSlots(h.ctx, tenant.projectId), 1, "the project's slots are back; the owner's session keeps its own");
  t.equal(await held(), holdFor(600), "only the owner's hold remains");

  // And the key can start sessions again.
  const again = await browser(key.key, '198.51.100.8');
  t.equal(again.statusCode, 201);
  clock.advance(15_000);
  t.equal((await sweepOnce(h.ctx)).expired, 1);
  clock.advance(60_000);
  await sweepOnce(h.ctx); // the owner's session expires too
  t.equal(await held(), 0n);
});

t.test('a late connect to an expired browser session is refused, and the key limits stay per key', async (t) => {
  const one = await mint({ max_concurrent_sessions: 1, connect_window_seconds: 5 });
  const two = await mint({ max_concurrent_sessions: 1 });
  t.equal((await browser(one.key, '198.51.100.20')).statusCode, 201);
  t.equal((await browser(one.key, '198.51.100.21')).statusCode, 429, 'budget 1');
  t.equal((await browser(two.key, '198.51.100.22')).statusCode, 201, "another key's budget is its own");
  clock.advance(5_000);
  t.equal((await sweepOnce(h.ctx)).expired, 1, 'the 5 s window is over; the 15 s one is not');
  t.equal((await browser(one.key, '198.51.100.23')).statusCode, 201);
  clock.advance(15_000);
  t.equal((await sweepOnce(h.ctx)).expired, 2);
});

t.test('the key budget holds whatever Redis lost: Postgres counts, and the sets are rebuilt', async (t) => {
  const key = await mint({ max_concurrent_sessions: 2 });
  t.equal((await browser(key.key, '198.51.100.30')).statusCode, 201);
  t.equal((await browser(key.key, '198.51.100.31')).statusCode, 201);

  // Only the key's set lost: Redis has room, Postgres (under the wallet lock) has not.
  await h.ctx.redis.del(keySlotKey(h.ctx, key.id));
  const refused = await browser(key.key, '198.51.100.32');
  t.equal(refused.statusCode, 429, 'refused by the count in Postgres');
  t.equal(await countKeySlots(h.ctx, key.id), 0, 'the slot Redis gave is given back');
  t.equal(await countSlots(h.ctx, tenant.projectId), 2, "and the project's too");

  // Everything lost (FLUSHALL of this test's keys): the sets are rebuilt from Postgres first.
  const keys = await h.ctx.redis.keys(`${h.ctx.redisPrefix}*`);
  await h.ctx.redis.del(...keys);
  t.equal((await browser(key.key, '198.51.100.33')).statusCode, 429, 'still full after the rebuild');
  t.equal(await countKeySlots(h.ctx, key.id), 2, "the key's set was rebuilt");
  clock.advance(15_000);
  t.equal((await sweepOnce(h.ctx)).expired, 2);
  t.equal((await browser(key.key, '198.51.100.34')).statusCode, 201);
});

t.test('a key budget lowered below what is live refuses new sessions until enough end', async (t) => {
  const key = await mint({ max_concurrent_sessions: 3 });
  for (let i = 0; i < 3; i++) t.equal((await browser(key.key, `198.51.100.${40 + i}`)).statusCode, 201);
  const patched = await h.app.inject({
    method: 'PATCH',
    url: `/console/v2/projects/${tenant.projectId}/publishable-keys/${key.id}`,
    headers: tenant.bearer,
    payload: { max_concurrent_sessions: 1 },
  });
  t.equal(patched.statusCode, 200);
  t.equal((await browser(key.key, '198.51.100.50')).statusCode, 429);
  clock.advance(15_000);
  await sweepOnce(h.ctx);
  t.equal((await browser(key.key, '198.51.100.51')).statusCode, 201);
  t.equal((await browser(key.key, '198.51.100.52')).statusCode, 429);
});
