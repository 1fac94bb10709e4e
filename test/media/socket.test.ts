import t from 'tap';
import opus from '@discordjs/opus';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode } from '../../src/roles/media.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until } from './client.js';

const h = await startHarness();
t.teardown(h.close);
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1' });
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 10_000n * MINUTE_NANO);

const open = async (body: Record<string, unknown> = {}) => {
  const a = await admit(h, tenant.machine, { agent_id: agent.agentId, ...body });
  return { id: a.session.id, url: mediaUrl(a.ws_url, media.port) };
};
const row = async (id: string) => (await h.ctx.sql`select * from voice_sessions where id = ${id}`)[0];

t.test('a call streams audio in, gets paced audio out, then stops', async (t) => {
  const s = await open();
  const c = connect(s.url);
  await c.opened;
  await until(async () => (await row(s.id)).status === 'active');
  const started = performance.now();
  for (let i = 0; i < 50; i++) {
    c.ws.send(sine(16000, 20, 440, i * 320));
    await sleep(20);
  }
  await sleep(150);
  const frames = c.binary;
  t.ok(frames.length >= 45, `received ${frames.length} frames`);
  t.ok(frames.every((f) => f.data.length === 960), '20 ms of 24 kHz PCM16 per message');
  // Paced: never more than the lead ahead of real time since the first frame.
  const first = frames[0].at;
  frames.forEach((f, i) => t.ok(f.at >= first + i * 20 - 200, `frame ${i} not ahead of the 200 ms lead`));
  // Echo: the caller's tone comes back with energy.
  const mid = frames[Math.floor(frames.length / 2)].data;
  let energy = 0;
  for (let i = 0; i < mid.length; i += 2) energy += Math.abs(mid.readInt16LE(i));
  t.ok(energy / 480 > 1000, 'echoed audio has signal');
  t.ok(performance.now() - started < 3000);

  c.ws.send(JSON.stringify({ type: 'stop' }));
  const closed = await c.closed;
  t.equal(closed.code, 1000);
  t.same(c.text.at(-1), { type: 'session_ended', reason: 'caller_hangup' });
  await media.idle();
  const r = await row(s.id);
  t.equal(r.status, 'completed');
  t.equal(r.end_reason, 'caller_hangup');
  t.ok(r.connected_seconds >= 1 && r.connected_seconds <= 3);
  t.equal(r.cost_nano_usd, 5_000_000n);
  t.ok(r.media_disconnected_at >= r.media_connected_at);

  // Token reuse after the call: 4401.
  const again = connect(s.url);
  t.equal((await again.closed).code, 4401);
});

t.test('refusals use the spec close codes', async (t) => {
  const codeOf = async (url: string) => (await connect(url).closed).code;

  const s1 = await open();
  const bad = new URL(s1.url);
  bad.searchParams.set('token', 'x'.repeat(43));
  t.equal(await codeOf(bad.toString()), 4401, 'bad token');
  const none = new URL(s1.url);
  none.search = '';
  t.equal(await codeOf(none.toString()), 4401, 'no token');

  const unknown = s1.url.replace(s1.id, '00000000-0000-4000-8000-000000000000');
  t.equal(await codeOf(unknown), 4404, 'unknown session');
  t.equal(await codeOf(s1.url.replace(s1.id, 'not-a-session')), 4404, 'malformed id');

  // Two racing connects with one token: exactly one wins.
  const a = connect(s1.url);
  const b = connect(s1.url);
  const first = await Promise.race([a.closed.then(() => 'a'), b.closed.then(() => 'b')]);
  const loser = first === 'a' ? a : b;
  const winner = first === 'a' ? b : a;
  t.equal((await loser.closed).code, 4401, 'second connect is 4401');
  winner.ws.close();
  await winner.closed;

  const s2 = await open();
  await h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where id = ${s2.id}`;
  t.equal(await codeOf(s2.url), 4408, 'expired');
  t.equal((await row(s2.id)).end_reason, 'not_connected');

  const a2 = await createAgent(h, tenant.projectId);
  const s3 = await admit(h, tenant.machine, { agent_id: a2.agentId });
  await h.ctx.sql`update agents set is_active = false where id = ${a2.agentId}`;
  t.equal(await codeOf(mediaUrl(s3.ws_url, media.port)), 4409, 'agent deactivated: not connectable');

  const a3 = await createAgent(h, tenant.projectId);
  const s4 = await admit(h, tenant.machine, { agent_id: a3.agentId });
  await h.ctx.sql`update provider_accounts set status = 'invalid' where id = ${a3.accountIds[1]}`;
  t.equal(await codeOf(mediaUrl(s4.ws_url, media.port)), 4453, 'provider pipeline unavailable');
  t.same({ ...(await h.ctx.sql`select status, end_reason from voice_sessions where id = ${s4.session.id}`)[0] }, { status: 'failed', end_reason: 'provider_error' });
  t.equal(await codeOf(mediaUrl(s4.ws_url, media.port)), 4409, 'an ended session is not connectable');

  // The slot of an admitted session lapsed and the project filled up meanwhile.
  const other = await createTenant(h);
  await setProjectLimits(h.ctx, other.projectId, { max_concurrent_sessions: 1 });
  const a4 = await createAgent(h, other.projectId);
  await fund(h, other.projectId, 100n * MINUTE_NANO);
  const s5 = await admit(h, other.machine, { agent_id: a4.agentId });
  await h.ctx.redis.del(`${h.ctx.redisPrefix}{slots}:slots:${other.projectId}`);
  // A second admission is refused all the same: Postgres counts s5 as live.
  const refused = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: other.machine, payload: { agent_id: a4.agentId } });
  t.equal(refused.statusCode, 429, 'the live count in Postgres holds the limit without the slot');
  // Something else holds the only place in Redis now.
  await h.ctx.redis.zadd(`${h.ctx.redisPrefix}{slots}:slots:${other.projectId}`, Date.now() + 60_000, 'another-session');
  t.equal(await codeOf(mediaUrl(s5.ws_url, media.port)), 4429, 'concurrency');
});

t.test('bad audio gets error frames; over 1 MiB closes 1009; a drop is a caller hang-up', async (t) => {
  const s = await open();
  const c = connect(s.url);
  await c.opened;
  c.ws.send(Buffer.alloc(641));
  c.ws.send(Buffer.alloc(64 * 1024 + 2));
  c.ws.send('{"type":"dance"}');
  await until(() => c.text.length >= 3);
  t.same(c.text.map((f) => f.type), ['error', 'error', 'error']);
  t.match(String(c.text[0].message), /even/);
  t.match(String(c.text[1].message), /65536/);
  // A valid message larger than the framer's chunk (200 ms at once) is echoed whole.
  c.ws.send(sine(16000, 200));
  await until(() => c.binary.length >= 9);
  t.ok(c.binary.length <= 10);
  c.ws.send(Buffer.alloc(1024 * 1024 + 2));
  t.equal((await c.closed).code, 1009);
  await media.idle();
  await until(async () => (await row(s.id)).status === 'completed');
  t.equal((await row(s.id)).end_reason, 'caller_hangup');

  const d = await open();
  const c2 = connect(d.url);
  await c2.opened;
  // A drop once the call runs (activation is a database round trip after the socket opened; a
  // drop before it leaves the session unjoined, its token unused).
  await until(async () => (await row(d.id)).status === 'active');
  c2.ws.terminate();
  await until(async () => (await row(d.id)).status === 'completed');
  t.equal((await row(d.id)).end_reason, 'caller_hangup');
});

t.test('max_duration_seconds ends the call with session_ended then 1000', async (t) => {
  const s = await open({ max_duration_seconds: 1 });
  const c = connect(s.url);
  await c.opened;
  const closed = await c.closed;
  t.equal(closed.code, 1000);
  t.same(c.text.at(-1), { type: 'session_ended', reason: 'max_duration' });
  await media.idle();
  const r = await row(s.id);
  t.equal(r.status, 'completed');
  t.equal(r.end_reason, 'max_duration');
  t.equal(r.connected_seconds, 1);
});

t.test('encoding opus: 20 ms Opus packets each way', async (t) => {
  const s = await open({ encoding: 'opus', sample_rate_in: 16000, sample_rate_out: 24000 });
  const c = connect(s.url);
  await c.opened;
  const enc = new opus.OpusEncoder(16000, 1);
  for (let i = 0; i < 25; i++) {
    c.ws.send(enc.encode(sine(16000, 20, 440, i * 320)));
    await sleep(20);
  }
  await until(() => c.binary.length >= 15, 10_000);
  const dec = new opus.OpusEncoder(24000, 1);
  const pcm = dec.decode(c.binary[5].data);
  t.equal(pcm.length, 960, 'each packet decodes to 20 ms at 24 kHz');
  t.ok(c.binary[5].data.length < 960, 'packets are compressed');
  c.ws.send('{"type":"stop"}');
  t.equal((await c.closed).code, 1000);
});

t.test('draining: 503 on admission, 1013 for connects, connected calls end with service_restart', async (t) => {
  const s = await open();
  const c = connect(s.url);
  await c.opened;
  await until(async () => (await row(s.id)).status === 'active');
  const pending = await open();
  const drained = media.drain(300);
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agent.agentId } });
  t.equal(res.statusCode, 503);
  t.same(res.json(), { detail: 'service draining' });
  t.equal((await connect(pending.url).closed).code, 1013);
  const closed = await c.closed;
  t.equal(closed.code, 1013);
  t.same(c.text.at(-1), { type: 'session_ended', reason: 'service_restart' });
  await drained;
  const r = await row(s.id);
  t.equal(r.status, 'completed');
  t.equal(r.end_reason, 'service_restart');
  t.ok(r.settled_at);
});
