import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { startMediaNode } from '../../src/roles/media.js';
import { countKeySlots } from '../../src/sessions/slots.js';
import { holdFor } from '../../src/contract/money.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import WebSocket from 'ws';
import { mediaUrl, until } from '../media/client.js';

// A connected browser session ends at its key's max_duration_seconds (the media node's
// max_duration, contract §11), is billed for it, and gives its key's slot back when it ends.
// Real media node and socket, real Postgres and Redis.

const h = await startHarness();
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1' });
t.teardown(async () => {
  await media.drain(0);
  await h.close();
});
const tenant = await createTenant(h);
const { agentId } = await createAgent(h, tenant.projectId, { maxDurationSeconds: 600 });
await fund(h, tenant.projectId, 100n * MINUTE_NANO);
const ORIGIN = 'https://shop.example.com';

t.test("a connected browser session is ended at its key's max duration", async (t) => {
  const minted = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${tenant.projectId}/publishable-keys`,
    headers: tenant.bearer,
    payload: { name: 'short', origins: [ORIGIN], max_duration_seconds: 1 },
  });
  const key = minted.json() as { id: string; key: string };
  const res = await h.app.inject({ method: 'POST', url: '/v2/browser/sessions', headers: { 'x-publishable-key': key.key, origin: ORIGIN }, payload: { agent_id: agentId } });
  t.equal(res.statusCode, 201);
  const { session, ws_url } = res.json() as { session: { id: string; max_duration_seconds: number; hold_nano_usd?: string }; ws_url: string };
  t.equal(session.max_duration_seconds, 1, "the key's 1 s, not the agent's 600 s");
  const [stored] = await h.ctx.sql`select hold_nano_usd from voice_sessions where id = ${session.id}`;
  t.equal(stored.hold_nano_usd, holdFor(1), 'the hold is sized by it');
  t.equal(await countKeySlots(h.ctx, key.id), 1);

  // The page's socket, from the key's origin.
  const ws = new WebSocket(mediaUrl(ws_url, media.port), { origin: ORIGIN });
  const text: unknown[] = [];
  ws.on('message', (data, isBinary) => {
    if (!isBinary) text.push(JSON.parse(data.toString()));
  });
  const closed = await new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  t.equal(closed, 1000);
  t.same(text.at(-1), { type: 'session_ended', reason: 'max_duration' });
  await media.idle();
  await until(async () => (await h.ctx.sql`select settled_at from voice_sessions where id = ${session.id}`)[0].settled_at !== null);
  const [row] = await h.ctx.sql`select * from voice_sessions where id = ${session.id}`;
  t.match(row, { status: 'completed', end_reason: 'max_duration', connected_seconds: 1, publishable_key_id: key.id });
  t.equal(await countKeySlots(h.ctx, key.id), 0, "the key's slot is given back when the call ends");
});
