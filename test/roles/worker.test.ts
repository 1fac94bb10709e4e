import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgent, fund } from '../sessions/fixtures.js';
import { ManualClock } from '../../src/shared/clock.js';
import { start } from '../../src/roles/worker.js';

// The worker role as `npm start` runs it: its sweeper fails a session whose ws_url expired unused.
const clock = new ManualClock();
const h = await startHarness({ clock });
t.teardown(h.close);

t.test('an unused ws_url expires into failed / not_connected and frees the hold', async (t) => {
  const tenant = await createTenant(h);
  const { agentId } = await createAgent(h, tenant.projectId);
  await fund(h, tenant.projectId, 100_000_000n);
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agentId } });
  t.equal(res.statusCode, 201);
  const id = res.json().session.id;
  clock.advance(61_000);
  const stop = await start(h.ctx);
  t.teardown(stop);
  let session;
  for (let i = 0; i < 40; i++) {
    session = (await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${id}`, headers: tenant.machine })).json();
    if (session.status !== 'created') break;
    await new Promise((r) => setTimeout(r, 250));
  }
  t.match(session, { status: 'failed', end_reason: 'not_connected', cost_nano_usd: '0' });
  const wallet = (await h.app.inject({ method: 'GET', url: `/console/v2/projects/${tenant.projectId}/wallet`, headers: tenant.bearer })).json();
  t.match(wallet, { balance_nano_usd: '100000000', held_nano_usd: '0' });
});
