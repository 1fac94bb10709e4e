import fc from 'fast-check';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { startMediaNode } from '../../src/roles/media.js';
import { MAX_AUDIO_MESSAGE_BYTES } from '../../src/contract/control-frames.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, until } from './client.js';

// Property, over the real media socket: whatever a caller's client sends (binary of any length
// and content, any text), each bad message gets exactly one `error` frame and the call goes on;
// `{"type":"stop"}` then ends it with session_ended + 1000, settled once as a caller hang-up.
// Never a 1011, never a lost settlement.

const RUNS = Number(process.env.FUZZ_RUNS ?? 25);
const h = await startHarness();
t.teardown(h.close);
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1' });
t.teardown(() => media.drain(0));
const tenant = await createTenant(h);
// Shrinking a failure replays hundreds of admissions a minute: the API's rate limit must not mask it.
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100, api_rpm: 10_000 });
const agent = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 100_000n * MINUTE_NANO);

type Message = { binary: Buffer } | { text: string };

const isStop = (text: string) => {
  try {
    return (JSON.parse(text) as { type?: unknown })?.type === 'stop';
  } catch {
    return false;
  }
};
const binary = fc
  .oneof(
    fc.integer({ min: 0, max: 4000 }),
    fc.integer({ min: MAX_AUDIO_MESSAGE_BYTES - 4, max: MAX_AUDIO_MESSAGE_BYTES + 4 }),
    fc.integer({ min: MAX_AUDIO_MESSAGE_BYTES + 5, max: 200_000 }),
  )
  .chain((n) => fc.uint8Array({ minLength: Math.min(n, 64), maxLength: Math.min(n, 64) }).map((head) => ({ n, head })))
  .map(({ n, head }): Message => {
    const b = Buffer.alloc(n);
    b.set(head);
    return { binary: b };
  });
const text = fc
  .oneof(fc.string(), fc.json(), fc.constantFrom('{"type":"STOP"}', '{"type":"stop "}', '{"type":["stop"]}', '[]', 'null', '{"type":"interrupted"}'))
  .filter((s) => !isStop(s))
  .map((s): Message => ({ text: s }));

/** Error frames the server owes for one message (contract §9). */
function errorsFor(m: Message): number {
  if ('text' in m) return 1;
  const n = m.binary.length;
  return n % 2 === 1 || n > MAX_AUDIO_MESSAGE_BYTES ? 1 : 0;
}

t.test('random client messages: one error frame per bad message, then stop ends and settles the call', async (t) => {
  let runs = 0;
  const result = await fc.check(
    fc.asyncProperty(fc.array(fc.oneof(binary, text), { minLength: 1, maxLength: 12 }), async (messages) => {
      runs++;
      const a = await admit(h, tenant.machine, { agent_id: agent.agentId });
      const c = connect(mediaUrl(a.ws_url, media.port));
      await c.opened;
      for (const m of messages) c.ws.send('text' in m ? m.text : m.binary, { binary: !('text' in m) });
      const errors = messages.reduce((sum, m) => sum + errorsFor(m), 0);
      await until(() => c.text.length >= errors, 15_000);
      c.ws.send(JSON.stringify({ type: 'stop' }));
      const closed = await c.closed;
      if (closed.code !== 1000) throw new Error(`closed ${closed.code} ${closed.reason}`);
      const kinds = c.text.map((f) => f.type);
      const expected = [...Array<string>(errors).fill('error'), 'session_ended'];
      if (JSON.stringify(kinds) !== JSON.stringify(expected)) throw new Error(`frames ${JSON.stringify(kinds)}, expected ${JSON.stringify(expected)}`);
      await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${a.session.id}`)[0].status === 'completed', 15_000);
      const [row] = await h.ctx.sql`select end_reason, cost_nano_usd from voice_sessions where id = ${a.session.id}`;
      const ledger = await h.ctx.sql`select kind from wallet_ledger where session_id = ${a.session.id} order by kind`;
      if (row.end_reason !== 'caller_hangup' || row.cost_nano_usd !== 5_000_000n) throw new Error(`settled ${JSON.stringify(row)}`);
      if (ledger.map((l) => l.kind).join() !== 'charge,hold,release') throw new Error(`ledger ${ledger.map((l) => l.kind)}`);
    }),
    { numRuns: RUNS },
  );
  // The counterexample, shortly: binary messages by their length (they can be 200 KB each).
  const shown = result.counterexample?.[0].map((m) => ('text' in m ? { text: m.text } : { binaryBytes: m.binary.length }));
  t.notOk(result.failed, result.failed ? `${String(result.errorInstance)} for ${JSON.stringify(shown)} (seed ${result.seed})` : 'no failure');
  t.ok(runs >= RUNS, `${runs} calls, each with up to 12 random messages`);
});

t.test('a text frame that is not UTF-8 drops the socket (uWS: no close frame), and the call settles once', async (t) => {
  const a = await admit(h, tenant.machine, { agent_id: agent.agentId });
  const c = connect(mediaUrl(a.ws_url, media.port));
  await c.opened;
  // The call runs once its activation (a database round trip after the socket opened) is done; a
  // socket dropped before that leaves the session unjoined with its token unused, not settled.
  await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${a.session.id}`)[0].status === 'active', 5000);
  c.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
  t.equal((await c.closed).code, 1006, 'uWebSockets.js ends the connection on invalid UTF-8 without a close frame');
  await until(async () => (await h.ctx.sql`select status from voice_sessions where id = ${a.session.id}`)[0].status === 'completed', 15_000);
  const [row] = await h.ctx.sql`select end_reason from voice_sessions where id = ${a.session.id}`;
  t.equal(row.end_reason, 'caller_hangup');
  const ledger = await h.ctx.sql`select kind from wallet_ledger where session_id = ${a.session.id} order by kind`;
  t.same(ledger.map((l) => l.kind), ['charge', 'hold', 'release']);
});
