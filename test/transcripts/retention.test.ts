import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { ManualClock } from '../../src/shared/clock.js';
import { endSession } from '../../src/sessions/settlement.js';
import { getTranscript, sweepExpiredTranscripts } from '../../src/transcripts/index.js';
import { analyseSession } from '../../src/insights/index.js';
import { start } from '../../src/roles/worker.js';
import { activeSession, createAgentVersioned, TRANSCRIPT } from './support.js';

// Transcripts are stored in the settlement transaction when store_transcript is on, expire
// after min(agent retention_days, TRANSCRIPT_RETENTION_DAYS) and are swept; insights stay.

const DAY_MS = 24 * 3600 * 1000;
const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
const h = await startHarness({ clock, env: { TRANSCRIPT_RETENTION_DAYS: '30' } });
t.teardown(h.close);
const tenant = await createTenant(h);
await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: 100 });
await fund(h, tenant.projectId, 10_000n * MINUTE_NANO);

const rows = (id: string) => h.ctx.sql`select seq, role, text, start_ms, end_ms, expires_at from session_transcripts where session_id = ${id} order by seq`;
const end = (id: string, transcript = TRANSCRIPT) => endSession(h.ctx, id, { outcome: 'completed', endReason: 'caller_hangup', transcript });

t.test('stored when store_transcript is on, expiring after the agent retention capped by the service', async (t) => {
  const cases: [number | null, number][] = [[7, 7], [null, 30], [60, 30], [30, 30], [1, 1]];
  for (const [agentDays, expectedDays] of cases) {
    const { agentId } = await createAgentVersioned(h, tenant.projectId, { retentionDays: agentDays });
    const id = await activeSession(h, tenant, agentId);
    clock.advance(5_000);
    const ended = await end(id);
    const stored = await rows(id);
    t.equal(stored.length, TRANSCRIPT.length, `retention ${agentDays}: every entry`);
    const endedAt = Date.parse(ended!.session.ended_at!.toString());
    for (const r of stored) t.equal(r.expires_at.getTime(), endedAt + expectedDays * DAY_MS, `agent ${agentDays} → ${expectedDays} days`);
    t.same(await getTranscript(h.ctx.sql, id), TRANSCRIPT, 'read back in order, as given');
  }
});

t.test('not stored when store_transcript is off (agent, or tightened by the request)', async (t) => {
  const off = await createAgentVersioned(h, tenant.projectId, { storeTranscript: false });
  const a = await activeSession(h, tenant, off.agentId);
  await end(a);
  t.same(await rows(a), [], 'agent off');
  const on = await createAgentVersioned(h, tenant.projectId, { storeTranscript: true });
  const b = await activeSession(h, tenant, on.agentId, { store_transcript: false });
  await end(b);
  t.same(await rows(b), [], 'request off');
  const c = await activeSession(h, tenant, on.agentId);
  await end(c, []);
  t.same(await rows(c), [], 'an empty transcript stores nothing');
  const d = await activeSession(h, tenant, on.agentId);
  await endSession(h.ctx, d, { outcome: 'completed', endReason: 'caller_hangup' });
  t.same(await rows(d), [], 'no transcript at all');
});

t.test('the agent webhook delivery carries the transcript when asked, stored or not', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { storeTranscript: false, webhookUrl: 'https://hooks.example.com/x', includeTranscript: true });
  const id = await activeSession(h, tenant, agentId);
  await end(id);
  const [d] = await h.ctx.sql`
    select d.data from webhook_deliveries d join webhook_events e on e.id = d.event_id
    where d.kind = 'agent' and e.data->'session'->>'id' = ${id}`;
  t.same(d.data.transcript, TRANSCRIPT);
  t.same(await rows(id), []);
});

t.test('duplicate end signals store the transcript once', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId);
  const id = await activeSession(h, tenant, agentId);
  const results = await Promise.all(Array.from({ length: 6 }, () => end(id)));
  t.equal(results.filter((r) => r!.settledNow).length, 1);
  t.equal((await rows(id)).length, TRANSCRIPT.length);
  await end(id, [{ role: 'user', text: 'late duplicate', start_ms: 1, end_ms: 2 }]);
  t.same(await getTranscript(h.ctx.sql, id), TRANSCRIPT, 'a later duplicate changes nothing');
});

t.test('what the engine hands over is cleaned, not refused', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId);
  const id = await activeSession(h, tenant, agentId);
  const messy = [
    { role: 'user', text: 'nul\u0000 and lone \ud800 surrogate', start_ms: 10.6, end_ms: 5 },
    { role: 'assistant', text: '   ', start_ms: 20, end_ms: 30 },
    { role: 'user', text: 'ok', start_ms: -5, end_ms: Number.NaN },
  ];
  const ended = await end(id, messy as never);
  t.equal(ended!.settledNow, true);
  t.same(await getTranscript(h.ctx.sql, id), [
    { role: 'user', text: 'nul and lone \ufffd surrogate', start_ms: 11, end_ms: 11 },
    { role: 'user', text: 'ok', start_ms: 0, end_ms: 0 },
  ]);
});

t.test('the sweeper deletes expired transcripts in batches; insights survive', async (t) => {
  // Everything stored so far expires within 30 days of now; make one with insights too.
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { retentionDays: 2, insightConfig: { summary: true } });
  const id = await activeSession(h, tenant, agentId);
  await end(id);
  const outcome = await analyseSession(h.ctx, id, { finalAttempt: true });
  t.equal(outcome.kind, 'stored');
  const count = async (where = h.ctx.sql``) => (await h.ctx.sql`select count(*)::int as n from session_transcripts ${where}`)[0].n as number;

  clock.advance(2 * DAY_MS - 1);
  const due = await count(h.ctx.sql`where expires_at <= ${clock.now()}`);
  t.ok(due > 0, 'the 1-day transcripts of earlier tests are due');
  t.equal(await sweepExpiredTranscripts(h.ctx), due, 'exactly what is due goes');
  t.equal((await rows(id)).length, TRANSCRIPT.length, 'not this one, 1 ms before its expiry');
  const before = await count();
  clock.advance(1);
  t.equal(await sweepExpiredTranscripts(h.ctx, { batchSize: 2 }), TRANSCRIPT.length, '2 days: this one goes (in batches of 2)');
  t.same(await getTranscript(h.ctx.sql, id), []);
  const [s] = await h.ctx.sql`select insights from voice_sessions where id = ${id}`;
  t.match(s.insights, { status: 'completed', model: 'echo', summary: /^The caller first said: "I want to book a table for four on Friday\."/ }, 'the summary survives');
  const res = await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${id}`, headers: tenant.machine });
  t.equal(res.json().insights.summary, s.insights.summary);

  clock.advance(30 * DAY_MS);
  t.equal(await sweepExpiredTranscripts(h.ctx, { batchSize: 3, maxBatches: 2 }), 6, 'a sweep stops after maxBatches');
  t.equal(await sweepExpiredTranscripts(h.ctx), before - TRANSCRIPT.length - 6, 'the next one carries on');
  t.equal(await count(), 0);
});

t.test('the worker role runs the retention sweeper', async (t) => {
  const { agentId } = await createAgentVersioned(h, tenant.projectId, { retentionDays: 1 });
  const id = await activeSession(h, tenant, agentId);
  await end(id);
  t.equal((await rows(id)).length, TRANSCRIPT.length);
  clock.advance(DAY_MS);
  const stop = await start(h.ctx);
  t.teardown(stop);
  const deadline = Date.now() + 10_000;
  while ((await rows(id)).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.same(await rows(id), []);
});
