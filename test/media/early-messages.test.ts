import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode } from '../../src/roles/media.js';
import { EchoCall } from '../../src/media/echo-call.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until } from './client.js';

// The browser socket opens before its session is activated (src/media/browser-stream.ts). A
// client may send from the moment it opens: what it sends meanwhile reaches the call once it
// runs, answered as on a running call (the echo pipeline here plays back only the first 60 ms
// of that audio, its pacing lead: the rest would stay as delay); leaving meanwhile is a hang-up; flooding
// meanwhile is cut. Activation is held open here by a pipeline the test releases.

let release: () => void = () => {};
let gate = Promise.resolve();
const holdActivation = () => {
  gate = new Promise<void>((resolve) => (release = resolve));
};
const h = await startHarness();
t.teardown(h.close);
const media = await startMediaNode(h.ctx, {
  port: 0,
  host: '127.0.0.1',
  pipelineFactory: async (row) => {
    await gate;
    return new EchoCall(row.sample_rate_in, row.sample_rate_out);
  },
});
t.teardown(() => media.drain(0));
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1_000n * MINUTE_NANO);

const row = async (id: string) => (await h.ctx.sql`select * from voice_sessions where id = ${id}`)[0];
const ledger = async (id: string) => (await h.ctx.sql`select kind from wallet_ledger where session_id = ${id} order by kind`).map((r) => r.kind as string);
const energy = (pcm: Buffer) => {
  let sum = 0;
  for (let i = 0; i < pcm.length; i += 2) sum += Math.abs(pcm.readInt16LE(i));
  return sum / (pcm.length / 2);
};

async function openHeld() {
  holdActivation();
  const a = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(a.ws_url, media.port));
  await c.opened;
  return { id: a.session.id, c };
}

/** The session is activated (its token used) and its call is being built, held by the gate. */
const activating = (id: string) => until(async () => (await row(id)).status === 'active');

t.test('messages sent before the call runs are answered once it runs; the echo plays only 60 ms of their audio', async (t) => {
  const { id, c } = await openHeld();
  for (let i = 0; i < 10; i++) c.ws.send(sine(16000, 20, 440, i * 320));
  c.ws.send(Buffer.alloc(3)); // odd length: one error frame
  c.ws.send('not json'); // one error frame
  await sleep(200); // the messages reach the node; it must keep them, not answer yet
  t.equal(c.text.length, 0, 'nothing answered while the session activates');
  t.equal(media.sessions.size, 0, 'the call is not running yet');

  release();
  await until(() => c.text.length >= 2 && media.sessions.size === 1, 10_000);
  t.same(c.text.map((f) => f.type), ['error', 'error'], 'each bad message got its error frame');
  await sleep(300);
  // The pacer runs at real time: a frame that falls due while the backlog is pushed also leaves
  // (4 frames once in CI, on a loaded machine). All ten would come back if the backlog played.
  t.ok(c.binary.length >= 1 && c.binary.length <= 4, `of the 200 ms of tone sent before the call ran, ${c.binary.length} frames (the 60 ms lead, and a frame that fell due meanwhile) came back`);
  t.ok(c.binary.every((f) => energy(f.data) > 1000), 'and they carry the tone');
  c.binary.length = 0;
  for (let i = 0; i < 10; i++) c.ws.send(sine(16000, 20, 440, i * 320));
  await until(() => c.binary.length >= 8, 10_000);
  t.ok(c.binary.slice(0, 8).every((f) => energy(f.data) > 1000), 'live audio comes back');
  t.equal((await row(id)).status, 'active');

  c.ws.send(JSON.stringify({ type: 'stop' }));
  t.equal((await c.closed).code, 1000);
  await media.idle();
  t.match(await row(id), { status: 'completed', end_reason: 'caller_hangup' });
});

t.test('a stop sent before the call runs ends it as a hang-up as soon as it starts', async (t) => {
  const { id, c } = await openHeld();
  c.ws.send(JSON.stringify({ type: 'stop' }));
  release();
  const closed = await c.closed;
  t.equal(closed.code, 1000);
  t.same(c.text.at(-1), { type: 'session_ended', reason: 'caller_hangup' });
  await media.idle();
  t.match(await row(id), { status: 'completed', end_reason: 'caller_hangup' });
  t.same(await ledger(id), ['charge', 'hold', 'release'], 'settled once');
});

t.test('a client that leaves while its call is being built: the call is abandoned and settled once', async (t) => {
  const { id, c } = await openHeld();
  await activating(id);
  c.ws.close();
  await c.closed;
  release();
  await until(async () => (await row(id)).settled_at !== null, 10_000);
  t.match(await row(id), { status: 'completed', end_reason: 'caller_hangup' });
  t.same(await ledger(id), ['charge', 'hold', 'release'], 'settled once');
  t.equal(media.sessions.size, 0, 'no call left on the node');
});

t.test('more than 4 MiB before the call runs: closed 1008, and the call is not left running', async (t) => {
  const { id, c } = await openHeld();
  await activating(id);
  c.ws.send(Buffer.alloc(3_000_000));
  c.ws.send(Buffer.alloc(3_000_000));
  const closed = await c.closed;
  t.same(closed, { code: 1008, reason: 'too much sent before the call started' });
  release();
  await until(async () => (await row(id)).settled_at !== null, 10_000);
  t.match(await row(id), { status: 'completed', end_reason: 'caller_hangup' });
  t.equal(media.sessions.size, 0);
});

t.test('a flood before the call runs is cut by the message rate: one error frame, then 1008', async (t) => {
  const { id, c } = await openHeld();
  await activating(id);
  for (let i = 0; i < 500; i++) c.ws.send(Buffer.alloc(640));
  const closed = await c.closed;
  t.equal(closed.code, 1008);
  t.equal(c.text.filter((f) => f.type === 'error').length, 1, 'one error frame');
  release();
  await until(async () => (await row(id)).settled_at !== null, 10_000);
  t.equal(media.sessions.size, 0);
});
