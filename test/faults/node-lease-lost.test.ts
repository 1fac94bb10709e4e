import t from 'tap';
import { startTcpProxy } from '../helpers/tcp-proxy.js';
import { admitAndConnect, framesSince, fundedAgent, ledgerKinds, sessionRow, sleep, startFaultHarness, startRole, streamAudio, until } from './support.js';

// Deliverable 1, the other half: a media node that cannot keep its lease. Its way to Postgres
// goes through a proxy the test cuts (the worker keeps its own), so its renewals fail while the
// sweeper can settle. The node must end its calls itself, with a reason, before its lease runs
// out, and say why in its log; the sweeper settles them only after that, exactly once, and no
// audio flows for a call once it is settled.

const { h, roles } = await startFaultHarness(null);
const dbPort = Number(new URL(h.ctx.config.DATABASE_URL).port || 5432);
const proxy = await startTcpProxy(dbPort);
t.teardown(() => proxy.close());

t.test('a node cut off from Postgres ends its calls before the sweeper may settle them', async (t) => {
  const { tenant, agent } = await fundedAgent(h, { minutes: 100 });
  const viaProxy = new URL(h.ctx.config.DATABASE_URL);
  viaProxy.port = String(proxy.port);
  const media = await startRole(h, 'media', { DATABASE_URL: viaProxy.toString() });
  roles.push(media, await startRole(h, 'worker'));
  const calls = await admitAndConnect(h, tenant, agent.agentId, media.port, 3);
  const stopAudio = streamAudio(calls);
  t.teardown(stopAudio);
  const closedAtMs = new Map<string, number>();
  for (const c of calls) void c.client.closed.then(() => closedAtMs.set(c.id, Date.now()));
  await sleep(2000);

  await proxy.cut();
  const cutAt = Date.now();
  // Renewals fail from now on; the last one written is at most 10 s old, so the lease is lost within 30 s.
  await until(() => closedAtMs.size === 3, 35_000);
  const closes = await Promise.all(calls.map((c) => c.client.closed));
  t.ok(closes.every((c) => c.code === 1011), 'closed with 1011');
  t.ok(calls.every((c) => c.client.text.some((f) => f.type === 'session_ended' && f.reason === 'service_error')), 'session_ended says service_error');
  // Each call's lease runs out on its own second, so the node may end them in more than one tick.
  const lost = media.logs.filter((l) => String(l.msg).startsWith('node lease lost'));
  t.ok(lost.length > 0, 'the node logged why it ended the calls');
  t.equal(lost.reduce((n, l) => n + Number(l.calls), 0), 3, 'the log lines name the three calls between them');
  for (const l of lost) t.match(l, { renewal_failing_since: String });
  t.comment(`calls ended ${Math.round((Math.max(...closedAtMs.values()) - cutAt) / 1000)} s after the node lost Postgres`);

  // The sweeper settles them once their lease has run out, after the audio stopped.
  await until(async () => (await Promise.all(calls.map((c) => sessionRow(h, c.id)))).every((r) => r.settled_at !== null), 15_000);
  for (const c of calls) {
    const row = await sessionRow(h, c.id);
    t.match(row, { status: 'failed', end_reason: 'service_error' });
    const settledAt = (row.ended_at as Date).getTime();
    t.ok(closedAtMs.get(c.id)! < settledAt, `audio stopped ${settledAt - closedAtMs.get(c.id)!} ms before the settlement`);
    t.ok(framesSince(c, performance.now() - (Date.now() - settledAt)) === 0, 'no audio after the settlement');
  }

  // The node reaches Postgres again: its own settlement attempts find the calls settled.
  await proxy.restore();
  await until(() => media.logs.some((l) => l.msg === 'node lease renewed again' || l.msg === 'settlement landed after retries'), 20_000).catch(() => {});
  await sleep(2000);
  for (const c of calls) t.same(await ledgerKinds(h, c.id), { hold: 1, release: 1, charge: 1 }, 'settled exactly once');
});
