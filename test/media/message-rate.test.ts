import t, { type Test } from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode } from '../../src/roles/media.js';
import { loadConfig } from '../../src/config/env.js';
import { controlFrameJson, messageRateErrorFrame } from '../../src/contract/control-frames.js';
import { MessageRatePolicy } from '../../src/media/message-rate.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until, type MediaClient } from './client.js';

// The media socket's per-socket message rate limit (browser sockets; Twilio streams in
// message-rate-twilio.test.ts): a token bucket of MEDIA_MESSAGE_BURST messages refilled at
// MEDIA_MAX_MESSAGES_PER_SECOND, every message counted. Over it: exactly one `error` frame, then
// close 1008, and the call settles once, as a hang-up. Real clients (50 messages/s, bursts up to
// the bucket) are never cut. These tests run on the defaults (200/s, burst 400).

/** A bucket on a clock the test moves. */
function manual(perSecond: number, burst: number) {
  const clock = { ms: 1000 };
  const policy = new MessageRatePolicy(perSecond, burst, () => clock.ms);
  return { clock, policy, bucket: policy.bucket() };
}

/** The reference: a token bucket settled at every message (what the batched one approximates). */
class ExactBucket {
  private tokens: number;
  private atMs = 0;
  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
  }
  take(nowMs: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((nowMs - this.atMs) * this.perSecond) / 1000);
    this.atMs = nowMs;
    if (this.tokens < 1 - 1e-9) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Messages taken at one instant before the first refusal. */
function burstAt(b: { take(): boolean }, limit = 1e7): number {
  let n = 0;
  while (n < limit && b.take()) n++;
  return n;
}

t.test('the bucket, defaults (200/s, burst 400): a burst of at least 400 and a few more at most, then the rate', async (t) => {
  const { policy, bucket } = manual(200, 400);
  t.equal(policy.batch, 8, 'the clock is read every 8 messages');
  const n = burstAt(bucket);
  t.ok(n >= 400 && n <= 400 + 2 * (policy.batch - 1), `a fresh socket passes ${n} messages at one instant`);

  // Exactly at the rate for ten minutes, after spending the burst: never over.
  const s = manual(200, 400);
  for (let i = 0; i < 400; i++) s.bucket.take();
  const t0 = s.clock.ms;
  let over = 0;
  for (let i = 1; i <= 200 * 600; i++) {
    s.clock.ms = t0 + i * 5;
    if (!s.bucket.take()) over++;
  }
  t.equal(over, 0, '10 minutes at exactly 200/s with an empty bucket');

  // 1 % over the rate is cut once the bucket is spent: about 400 spare messages at 2 a second.
  const f = manual(200, 400);
  let cutAt = -1;
  for (let i = 1; i <= 202 * 600 && cutAt < 0; i++) {
    f.clock.ms = 1000 + (i * 1000) / 202;
    if (!f.bucket.take()) cutAt = i / 202;
  }
  t.ok(cutAt > 195 && cutAt < 215, `202/s against 200/s (burst 400): cut after ${cutAt.toFixed(1)} s`);

  // An hour idle refills to the burst, not beyond.
  const again = manual(200, 400);
  for (let i = 0; i < 300; i++) again.bucket.take();
  again.clock.ms += 3_600_000;
  const m = burstAt(again.bucket);
  t.ok(m >= 400 && m <= 400 + 2 * (policy.batch - 1), `after an hour idle: ${m} at one instant`);
});

t.test('the bucket below 100 messages of burst is read at every message: exact', async (t) => {
  const { clock, policy, bucket } = manual(200, 40);
  t.equal(policy.batch, 1);
  t.equal(burstAt(bucket), 40, 'exactly the burst at one instant');
  // Half a message of slack against float rounding: the next one passes half an interval (2.5 ms) on.
  clock.ms += 2.4;
  t.notOk(bucket.take(), 'less than half an interval later: still over');
  clock.ms += 0.2;
  t.ok(bucket.take(), 'then one more');
  for (const [rate, burst] of [
    [3, 7],
    [7, 1],
    [30, 90],
    [1_000_000, 99],
  ]) {
    const m = manual(rate, burst);
    t.equal(burstAt(m.bucket), burst, `${rate}/s, burst ${burst}: ${burst} at one instant`);
    let over = 0;
    const t0 = m.clock.ms;
    for (let i = 1; i <= 10_000; i++) {
      m.clock.ms = t0 + (i * 1000) / rate;
      if (!m.bucket.take()) over++;
    }
    t.equal(over, 0, `${rate}/s: 10,000 messages at exactly the rate`);
  }
  t.throws(() => new MessageRatePolicy(0, 1));
  t.throws(() => new MessageRatePolicy(1, 0));
});

t.test('the batched bucket never cuts earlier than an exact one, and a flood no more than 2 × batch − 1 messages later', async (t) => {
  const RUNS = Number(process.env.RATE_RUNS ?? 300);
  // Deterministic pseudo-random traffic: bursts, pauses and steady runs around the limit.
  let seed = 12345;
  const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  for (const [rate, burst] of [
    [200, 400],
    [50, 800],
    [1000, 1000],
    [200, 150],
    [100, 100],
  ]) {
    let worst = 0;
    let cuts = 0;
    for (let run = 0; run < RUNS; run++) {
      const m = manual(rate, burst);
      const exact = new ExactBucket(rate, burst);
      let exactCut = -1;
      let cut = -1;
      let now = m.clock.ms;
      // 0.9–1.5 × the rate on average: bunches at one instant, gaps, now and then a long pause;
      // once the exact bucket has cut, a flood (all at one instant).
      const g = 1000 / rate;
      const f = 0.9 + rnd() * 0.6;
      const spread = (g / f - 0.2 * g) / 0.399;
      for (let i = 0; i < 20_000 && cut < 0; i++) {
        if (exactCut < 0) {
          const r = rnd();
          now += r < 0.6 ? 0 : r < 0.999 ? rnd() * 2 * spread : rnd() * 400 * g;
        }
        m.clock.ms = now;
        if (exactCut < 0 && !exact.take(now)) exactCut = i;
        if (!m.bucket.take()) cut = i;
      }
      if (cut >= 0 && exactCut >= 0) {
        worst = Math.max(worst, cut - exactCut);
        cuts++;
      }
      if (cut >= 0 && (exactCut < 0 || cut < exactCut)) {
        t.fail(`${rate}/s burst ${burst}, run ${run}: cut at message ${cut}, the exact bucket at ${exactCut}`);
        return;
      }
      if (exactCut >= 0 && cut < 0) {
        t.fail(`${rate}/s burst ${burst}, run ${run}: a flood after the exact cut at ${exactCut} was never cut`);
        return;
      }
    }
    const batch = new MessageRatePolicy(rate, burst).batch;
    t.ok(worst <= 2 * batch - 1, `${rate}/s burst ${burst} (batch ${batch}): never earlier; at most ${worst} messages later (${cuts} of ${RUNS} runs cut)`);
  }
});

t.test('configuration: defaults 200/s and 400, overridable, validated', async (t) => {
  const d = loadConfig({});
  t.equal(d.MEDIA_MAX_MESSAGES_PER_SECOND, 200);
  t.equal(d.MEDIA_MESSAGE_BURST, 400);
  const c = loadConfig({ MEDIA_MAX_MESSAGES_PER_SECOND: '500', MEDIA_MESSAGE_BURST: '1500' });
  t.equal(c.MEDIA_MAX_MESSAGES_PER_SECOND, 500);
  t.equal(c.MEDIA_MESSAGE_BURST, 1500);
  t.throws(() => loadConfig({ MEDIA_MAX_MESSAGES_PER_SECOND: '0' }), /MEDIA_MAX_MESSAGES_PER_SECOND/);
  t.throws(() => loadConfig({ MEDIA_MESSAGE_BURST: '1.5' }), /MEDIA_MESSAGE_BURST/);
  t.equal(
    controlFrameJson(messageRateErrorFrame(200, 400)),
    '{"type":"error","message":"message rate limit exceeded: at most 200 messages per second (bursts of 400); closing with 1008"}',
  );
  t.equal(messageRateErrorFrame(200, 400), messageRateErrorFrame(200, 400), 'built once per limit');
});

// The media socket, default limits.
const h = await startHarness();
t.teardown(h.close);
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1' });
t.teardown(() => media.drain(0));
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 100_000n * MINUTE_NANO);

const RATE_ERROR = JSON.parse(controlFrameJson(messageRateErrorFrame(200, 400))) as Record<string, unknown>;
const isRateError = (f: Record<string, unknown>) => f.type === 'error' && f.message === RATE_ERROR.message;
const FRAME = sine(16000, 20); // 20 ms of 16 kHz PCM16: 640 bytes

async function call(): Promise<{ id: string; c: MediaClient }> {
  const a = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(a.ws_url, media.port));
  await c.opened;
  await until(() => media.sessions.has(a.session.id));
  return { id: a.session.id, c };
}

/** Settled exactly once, as a caller hang-up: one charge, one release, one call.completed. */
async function settledOnce(t: Test, id: string): Promise<void> {
  await media.idle();
  await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${id}`)[0].status !== 'active', 5000);
  await sleep(200); // room for a second settlement, were there one
  await media.idle();
  const [row] = await h.ctx.sql`select status, end_reason, cost_nano_usd from voice_sessions where id = ${id}`;
  t.match(row, { status: 'completed', end_reason: 'caller_hangup', cost_nano_usd: MINUTE_NANO }, 'completed as a caller hang-up, billed its minute');
  const ledger = await h.ctx.sql`select kind from wallet_ledger where session_id = ${id} order by kind`;
  t.same(
    ledger.map((l) => l.kind),
    ['charge', 'hold', 'release'],
    'charged and released once',
  );
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from webhook_events where type = 'call.completed' and data->'session'->>'id' = ${id}`;
  t.equal(n, 1, 'one call.completed');
  t.notOk(media.sessions.has(id), 'gone from the node');
}

t.test('a client flooding audio messages gets one error frame, then close 1008; the call settles once', async (t) => {
  const { id, c } = await call();
  for (let i = 0; i < 3000; i++) c.ws.send(FRAME);
  const closed = await c.closed;
  t.same(closed, { code: 1008, reason: 'message rate limit exceeded' });
  t.same(c.text, [RATE_ERROR], 'exactly one text frame: the rate error (no session_ended: the close is the policy violation)');
  await settledOnce(t, id);
});

t.test('a client flooding text frames: one error per bad frame it was allowed, then the one rate error, then 1008', async (t) => {
  const { id, c } = await call();
  for (let i = 0; i < 3000; i++) c.ws.send('{"type":"dance"}');
  const closed = await c.closed;
  t.equal(closed.code, 1008);
  const rate = c.text.filter(isRateError);
  t.equal(rate.length, 1, 'one rate error');
  t.ok(isRateError(c.text.at(-1)!), 'the last text frame before the close');
  const answered = c.text.length - 1;
  t.ok(answered >= 400 && answered < 500, `${answered} bad control frames answered before the cut (the burst, plus the batch's slack and what the rate refilled)`);
  t.ok(
    c.text.slice(0, -1).every((f) => f.type === 'error' && !isRateError(f)),
    'the rest are the ordinary unknown-control-frame errors',
  );
  await settledOnce(t, id);
});

t.test('real clients are never cut: 50 messages/s, or 20 ms frames split into three messages (150/s), with control frames', async (t) => {
  const plain = await call();
  const split = await call();
  const SECONDS = 4;
  const t0 = performance.now();
  for (let i = 0; i < SECONDS * 50; i++) {
    const due = t0 + i * 20 - performance.now();
    if (due > 0) await sleep(due);
    plain.c.ws.send(FRAME);
    split.c.ws.send(FRAME.subarray(0, 214));
    split.c.ws.send(FRAME.subarray(214, 428));
    split.c.ws.send(FRAME.subarray(428));
    // A control frame now and then (unknown ones get an error frame; the call goes on).
    if (i % 50 === 25) for (const x of [plain, split]) x.c.ws.send('{"type":"dance"}');
  }
  await sleep(100);
  for (const x of [plain, split]) {
    t.ok(media.sessions.has(x.id), 'still connected');
    t.equal(x.c.text.filter(isRateError).length, 0, 'no rate error');
    t.equal(x.c.text.length, SECONDS, 'one error frame per unknown control frame');
    t.ok(x.c.binary.length >= SECONDS * 50 - 10, `${x.c.binary.length} frames echoed`);
    x.c.ws.send('{"type":"stop"}');
    t.equal((await x.c.closed).code, 1000, 'then stop ends it normally');
    t.same(x.c.text.at(-1), { type: 'session_ended', reason: 'caller_hangup' });
  }
});

t.test('a client bursting up to the burst (400 messages at once), then at 50/s, is never cut; the burst plus 50 more is', async (t) => {
  const ok = await call();
  for (let i = 0; i < 400; i++) ok.c.ws.send(FRAME);
  for (let i = 0; i < 100; i++) {
    await sleep(20);
    ok.c.ws.send(FRAME);
  }
  await sleep(100);
  t.ok(media.sessions.has(ok.id), 'still connected');
  t.equal(ok.c.text.length, 0, 'no error frame');
  ok.c.ws.send('{"type":"stop"}');
  t.equal((await ok.c.closed).code, 1000);

  const over = await call();
  for (let i = 0; i < 450; i++) over.c.ws.send(FRAME);
  t.equal((await over.c.closed).code, 1008, '450 at once is over a 400 burst');
  t.same(over.c.text, [RATE_ERROR]);
  await settledOnce(t, over.id);
});
