import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { endSession } from '../../src/sessions/settlement.js';
import { sweepExpiredTranscripts } from '../../src/transcripts/index.js';

// GET /v2/voice/sessions/{session_id}/transcript and its console twin (contract §11): the
// transcript the settlement stored, in call order, with tool entries and interruptions; 404s
// that say why there is none.

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);
const { agentId } = await createAgent(h, tenant.projectId, { storeTranscript: true });
await fund(h, tenant.projectId, 1000n * MINUTE_NANO);

const said = [
  { role: 'assistant', text: 'Hello, how can I help?', start_ms: 0, end_ms: 1200 },
  { role: 'user', text: 'Where is my order?', start_ms: 1500, end_ms: 2600 },
  { role: 'tool', text: 'lookup_order({"id":"7"}) → {"status":"shipped"}', start_ms: 2700, end_ms: 2900 },
  { role: 'assistant', text: 'It shipped yesterday and', start_ms: 3000, end_ms: 4100, interrupted: true },
  { role: 'user', text: 'Thanks, bye.', start_ms: 4000, end_ms: 4800 },
];

async function endedCall(body: object = {}, transcript: object[] = said): Promise<string> {
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agentId, ...body } });
  t.equal(res.statusCode, 201);
  const id = res.json().session.id as string;
  await endSession(h.ctx, id, { outcome: 'completed', endReason: 'caller_hangup', transcript: transcript as never });
  return id;
}
const read = (id: string, headers: Record<string, string> = tenant.machine) => h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${id}/transcript`, headers });

t.test('the stored transcript: entries in call order with roles, times, interruptions and tool calls', async (t) => {
  const id = await endedCall();
  const res = await read(id);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { session_id: id, entries: said.map((e) => ({ interrupted: false, ...e })) });
  const viaConsole = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${tenant.projectId}/voice/sessions/${id}/transcript`, headers: tenant.bearer });
  t.equal(viaConsole.statusCode, 200);
  t.same(viaConsole.json(), res.json(), 'the console twin answers the same');
  t.ok(res.headers['x-ratelimit-remaining'], 'a machine-door read is rate limited');
});

t.test('404s: another project\'s session, a transcript never stored, one removed by retention', async (t) => {
  const id = await endedCall();
  const them = await createTenant(h);
  const theirs = await read(id, them.machine);
  t.equal(theirs.statusCode, 404);
  t.same(theirs.json(), { detail: 'voice session not found' });
  const theirConsole = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${tenant.projectId}/voice/sessions/${id}/transcript`, headers: them.bearer });
  t.equal(theirConsole.statusCode, 404);

  const notStored = await endedCall({ store_transcript: false });
  t.same((await read(notStored)).json(), { detail: 'transcript not stored' });
  t.equal((await read(notStored)).statusCode, 404);
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agentId } });
  t.same((await read(res.json().session.id)).json(), { detail: 'transcript not stored' }, 'a call not over yet has none stored');

  // Past its expiry but not swept yet, then swept: both are "removed by retention".
  const old = await endedCall();
  await h.ctx.sql`update session_transcripts set expires_at = now() - interval '1 second' where session_id = ${old}`;
  t.same((await read(old)).json(), { detail: 'transcript removed by retention' });
  t.ok((await sweepExpiredTranscripts(h.ctx)) >= said.length);
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from session_transcripts where session_id = ${old}`;
  t.equal(n, 0, 'the rows are gone');
  const swept = await read(old);
  t.equal(swept.statusCode, 404);
  t.same(swept.json(), { detail: 'transcript removed by retention' });
  t.same((await read(id)).json().session_id, id, 'a live transcript is untouched by the sweep');
});

t.test('voice:read is required; a malformed id is 422 at path', async (t) => {
  const id = await endedCall();
  const writeOnly = await createTenant(h, ['voice:write']);
  const other = await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${id}/transcript`, headers: writeOnly.machine });
  t.equal(other.statusCode, 403);
  const bad = await read('not-a-uuid');
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['path', 'session_id']);
});
