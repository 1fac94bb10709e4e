import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { verifyDelivery } from '../fakes/receiver.js';
import { deliveryQueue, emitCallEvent, kickDeliveries, startWebhookWorkers } from '../../src/webhooks/index.js';
import { createEndpoint, delivery, insertAgent, receiverPool, rotateAgentSecret, sessionDoc, sleep, waitForStatus } from './support.js';

// Call events through the outbox: who receives what, the agent's own webhook and secret, and
// recovery of deliveries whose queue entry never existed or was lost.

const h = await startHarness({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,100,100' } });
const tenant = await createTenant(h);
const workerOpts = { concurrency: 4, sweepIntervalMs: 100, overdueGraceMs: 300 };
let stop = await startWebhookWorkers(h.ctx, workerOpts);
const { receiver, closeAll } = receiverPool();
t.teardown(async () => {
  await stop();
  await closeAll();
  await h.close();
});

const transcript = [
  { role: 'user', text: 'hello', start_ms: 0, end_ms: 900 },
  { role: 'assistant', text: 'hi there', start_ms: 1000, end_ms: 1800 },
];

t.test('call.completed reaches subscribed endpoints and the agent webhook, each signed with its own secret', async (t) => {
  const project = await createTenant(h);
  const [rxCompleted, rxFailed, rxAll, rxDisabled, rxAgent] = await Promise.all([receiver(), receiver(), receiver(), receiver(), receiver()]);
  const epCompleted = await createEndpoint(h, project, rxCompleted.url, ['call.completed']);
  await createEndpoint(h, project, rxFailed.url, ['call.failed']);
  const epAll = await createEndpoint(h, project, rxAll.url, []);
  const epDisabled = await createEndpoint(h, project, rxDisabled.url, []);
  await h.app.inject({ method: 'DELETE', url: `/v2/projects/${project.projectId}/webhooks/${epDisabled.id}`, headers: project.machine });
  const agent = await insertAgent(h, project.projectId, { webhookUrl: rxAgent.url, includeTranscript: true, includeRecordingUrl: true });

  const session = sessionDoc(project.projectId, agent.id);
  const emitted = await h.ctx.sql.begin((tx) =>
    emitCallEvent(tx, h.ctx, {
      projectId: project.projectId,
      agentId: agent.id,
      type: 'call.completed',
      session,
      transcript,
      recordingUrl: 'https://carrier.example/rec/1',
    }),
  );
  t.equal(emitted.deliveries.length, 3);
  await kickDeliveries(h.ctx, emitted);

  const [c] = await rxCompleted.waitFor(1);
  const [all] = await rxAll.waitFor(1);
  const [ag] = await rxAgent.waitFor(1);
  const expectedSession = JSON.parse(JSON.stringify(session, (_k, v) => (typeof v === 'bigint' ? v.toString() : v)));
  for (const [r, secret] of [[c, epCompleted.signing_secret], [all, epAll.signing_secret]] as const) {
    const body = verifyDelivery(secret, r);
    t.equal(body.type, 'call.completed');
    t.same(body.data, { session: expectedSession }, 'project endpoints get {session} only');
  }
  t.throws(() => verifyDelivery(epAll.signing_secret, ag), 'the agent delivery is not signed with an endpoint secret');
  const agentBody = verifyDelivery(agent.secret, ag);
  t.same(agentBody.data, { session: expectedSession, transcript, recording_url: 'https://carrier.example/rec/1' });
  t.equal((agentBody.data.session as { hold_nano_usd: string }).hold_nano_usd, '50000000', 'bigint money as a decimal string');
  t.not(c.id, all.id);

  await sleep(300);
  t.equal(rxFailed.received.length, 0, 'an endpoint subscribed only to call.failed gets nothing');
  t.equal(rxDisabled.received.length, 0, 'a disabled endpoint gets nothing');
  const kinds = await h.ctx.sql`select kind, count(*)::int as n from webhook_deliveries where event_id = ${emitted.eventId} group by kind order by kind`;
  t.same(kinds.map((k) => [k.kind, k.n]), [['agent', 1], ['endpoint', 2]]);
});

t.test('transcript and recording URL only when the agent says so; rotation changes the key', async (t) => {
  const project = await createTenant(h);
  const rxAgent = await receiver();
  const agent = await insertAgent(h, project.projectId, { webhookUrl: rxAgent.url });
  const emit = async () => {
    const e = await h.ctx.sql.begin((tx) =>
      emitCallEvent(tx, h.ctx, { projectId: project.projectId, agentId: agent.id, type: 'call.failed', session: sessionDoc(project.projectId, agent.id, 'failed'), transcript, recordingUrl: 'https://x.example/r' }),
    );
    await kickDeliveries(h.ctx, e);
    return e;
  };
  await emit();
  const [first] = await rxAgent.waitFor(1);
  const body = verifyDelivery(agent.secret, first);
  t.equal(body.type, 'call.failed');
  t.same(Object.keys(body.data), ['session']);

  const rotated = await rotateAgentSecret(h, agent.id);
  await emit();
  const [, second] = await rxAgent.waitFor(2);
  t.throws(() => verifyDelivery(agent.secret, second), 'the old secret no longer verifies');
  t.equal(verifyDelivery(rotated, second).type, 'call.failed');
});

t.test('an agent without a webhook_url and a project without endpoints produce no deliveries', async (t) => {
  const project = await createTenant(h);
  const agent = await insertAgent(h, project.projectId, { webhookUrl: null });
  const e = await h.ctx.sql.begin((tx) =>
    emitCallEvent(tx, h.ctx, { projectId: project.projectId, agentId: agent.id, type: 'call.completed', session: sessionDoc(project.projectId, agent.id) }),
  );
  t.same(e.deliveries, []);
  const [ev] = await h.ctx.sql`select type from webhook_events where id = ${e.eventId}`;
  t.equal(ev.type, 'call.completed', 'the event itself is still recorded');
});

t.test('the outbox rolls back with the transaction', async (t) => {
  const project = await createTenant(h);
  const rx = await receiver();
  await createEndpoint(h, project, rx.url);
  let eventId = '';
  await t.rejects(
    h.ctx.sql.begin(async (tx) => {
      eventId = (await emitCallEvent(tx, h.ctx, { projectId: project.projectId, agentId: null, type: 'call.completed', session: sessionDoc(project.projectId, null) })).eventId;
      throw new Error('session update failed');
    }),
  );
  const rows = await h.ctx.sql`select 1 from webhook_events where id = ${eventId}`;
  t.equal(rows.length, 0);
  await sleep(500);
  t.equal(rx.received.length, 0);
});

t.test('a committed event whose kick never happened (API died) is delivered by the sweeper', async (t) => {
  const project = await createTenant(h);
  const rx = await receiver();
  const ep = await createEndpoint(h, project, rx.url);
  const e = await h.ctx.sql.begin((tx) =>
    emitCallEvent(tx, h.ctx, { projectId: project.projectId, agentId: null, type: 'call.completed', session: sessionDoc(project.projectId, null) }),
  );
  // no kickDeliveries: the process "died" right after the commit
  const [got] = await rx.waitFor(1, 5000);
  t.equal(got.id, e.deliveries[0].id);
  t.equal(verifyDelivery(ep.signing_secret, got).type, 'call.completed');
  await waitForStatus(h, got.id, 'delivered');
});

t.test('jobs lost with Redis are rebuilt from Postgres', async (t) => {
  const project = await createTenant(h);
  const rx = await receiver();
  const ep = await createEndpoint(h, project, rx.url);
  await stop();
  const e = await h.ctx.sql.begin((tx) =>
    emitCallEvent(tx, h.ctx, { projectId: project.projectId, agentId: null, type: 'call.completed', session: sessionDoc(project.projectId, null) }),
  );
  await kickDeliveries(h.ctx, e);
  t.equal(await deliveryQueue(h.ctx).count(), 1, 'queued');
  // What a Redis restart without persistence does to the queue:
  await deliveryQueue(h.ctx).obliterate({ force: true });
  t.equal(await deliveryQueue(h.ctx).count(), 0, 'the job is gone');
  stop = await startWebhookWorkers(h.ctx, workerOpts);
  const [got] = await rx.waitFor(1, 5000);
  t.equal(got.id, e.deliveries[0].id);
  t.equal(verifyDelivery(ep.signing_secret, got).type, 'call.completed');
  t.equal((await waitForStatus(h, got.id, 'delivered')).attempts, 1);
});

t.test('deliveries are kept per delivery; the job carries only the id', async (t) => {
  const project = await createTenant(h);
  const rx = await receiver();
  await createEndpoint(h, project, rx.url);
  await stop();
  const e = await h.ctx.sql.begin((tx) =>
    emitCallEvent(tx, h.ctx, { projectId: project.projectId, agentId: null, type: 'call.completed', session: sessionDoc(project.projectId, null) }),
  );
  await kickDeliveries(h.ctx, e);
  const jobs = await deliveryQueue(h.ctx).getJobs(['waiting', 'delayed', 'prioritized']);
  t.same(jobs.map((j) => j.data), [{ deliveryId: e.deliveries[0].id }]);
  stop = await startWebhookWorkers(h.ctx, workerOpts);
  await waitForStatus(h, e.deliveries[0].id, 'delivered');
  t.equal((await delivery(h, e.deliveries[0].id)).attempts, 1);
});
