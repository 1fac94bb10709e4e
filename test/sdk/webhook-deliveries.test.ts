import t from 'tap';
import { ConsoleClient, NotFoundError, VoiceClient, toArray, type WebhookDelivery, type Webhooks } from '../../packages/sdk/src/index.js';
import { endSession } from '../../src/sessions/settlement.js';
import { startReceiver, verifyDelivery } from '../fakes/receiver.js';
import { fundedTenant, localAgentBody, startService } from './service.js';

// The delivery log, dead-letter replay, endpoint PATCH and stored transcripts through the SDK,
// against the real service with its webhook workers (a fast retry schedule), Postgres and Redis,
// on both doors.

const svc = await startService({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,50' }, webhookWorkers: true });
const rx = await startReceiver();
let healthy = false;
rx.respond(() => ({ status: healthy ? 204 : 500 }));
t.teardown(async () => {
  await rx.close();
  await svc.close();
});
const tenant = await fundedTenant(svc.h);
const client = new VoiceClient({ baseUrl: svc.baseUrl, apiKey: tenant.apiKey });
const consoleClient = await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password });
const scope = consoleClient.project(tenant.projectId);

/** Polls the delivery log (through the SDK) until the delivery has `status`. */
async function until(hooks: Webhooks, deliveryId: string, status: WebhookDelivery['status']): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if ((await toArray(hooks.deliveries({ status }))).some((d) => d.id === deliveryId)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`delivery ${deliveryId} never became ${status}`);
}

for (const [door, hooks] of [['machine door', client.webhooks(tenant.projectId)], ['console door', scope.webhooks]] as const) {
  t.test(`${door}: a dead letter in the log, replayed with the same webhook-id`, async (t) => {
    healthy = false;
    const before = rx.received.length;
    const endpoint = await hooks.create({ name: door, url: rx.url });
    const ping = await hooks.test(endpoint.id);
    await until(hooks, ping.delivery_id, 'dead');
    const [dead] = await toArray(hooks.deliveries({ endpoint_id: endpoint.id }));
    t.match(dead, { id: ping.delivery_id, webhook_id: ping.delivery_id, endpoint_id: endpoint.id, kind: 'endpoint', event_type: 'webhook.ping', status: 'dead', attempts: 2, last_status: 500 });
    t.same((await hooks.deadLetters({ limit: 50 })).map((d) => d.id).includes(ping.delivery_id), true);

    healthy = true;
    const replayed = await hooks.replay(endpoint.id, ping.delivery_id);
    t.match(replayed, { webhook_id: ping.delivery_id, replay_of: ping.delivery_id, endpoint_id: endpoint.id, event_type: 'webhook.ping', queued: true });
    t.not(replayed.delivery_id, ping.delivery_id, 'a new delivery');
    await until(hooks, replayed.delivery_id, 'delivered');
    const received = await rx.waitFor(before + 3);
    t.equal(received.at(-1)!.id, ping.delivery_id, 'the replay carries the original webhook-id');
    t.equal(verifyDelivery(endpoint.signing_secret, received.at(-1)!).type, 'webhook.ping', 'signed with the endpoint secret');

    const log = await toArray(hooks.deliveries({ endpoint_id: endpoint.id }, { pageSize: 1 }));
    t.same(log.map((d) => [d.id, d.status]), [
      [replayed.delivery_id, 'delivered'],
      [ping.delivery_id, 'dead'],
    ], 'newest first, page by page');
    t.same((await toArray(hooks.deliveries({ endpoint_id: endpoint.id, status: 'dead' }))).map((d) => d.id), [ping.delivery_id]);

    const notDead = await hooks.replay(endpoint.id, replayed.delivery_id).catch((e: unknown) => e);
    t.ok(notDead instanceof NotFoundError, 'a delivered delivery is no dead letter');

    // PATCH edits in place: same id and signing secret, a new revision.
    const edited = await hooks.update(endpoint.id, { url: `${rx.url}?v=2`, event_types: ['call.completed', 'call.failed'] });
    t.same([edited.id, edited.url, edited.event_types, edited.revision], [endpoint.id, `${rx.url}?v=2`, ['call.completed', 'call.failed'], endpoint.revision + 1]);
    const next = await hooks.test(endpoint.id);
    await until(hooks, next.delivery_id, 'delivered');
    t.equal(verifyDelivery(endpoint.signing_secret, rx.received.at(-1)!).type, 'webhook.ping', 'the secret stayed');
    t.equal(rx.received.at(-1)!.path, '/hook?v=2', 'the new URL is used');
    await hooks.disable(endpoint.id);
  });
}

t.test('a stored transcript through both doors; none stored is a NotFoundError', async (t) => {
  const agent = await client.agents.create(localAgentBody(tenant.localAccountId, { store_transcript: true }));
  const admitted = await client.sessions.create({ agent_id: agent.agent.id });
  const missing = await client.sessions.transcript(admitted.session.id).catch((e: unknown) => e);
  t.ok(missing instanceof NotFoundError, 'no transcript while the call has none');
  const entries = [
    { role: 'assistant' as const, text: 'Hello, how can I help?', start_ms: 0, end_ms: 1200, interrupted: true },
    { role: 'user' as const, text: 'Book a table.', start_ms: 900, end_ms: 2000 },
  ];
  await endSession(svc.h.ctx, admitted.session.id, { outcome: 'completed', endReason: 'caller_hangup', transcript: entries });
  const machine = await client.sessions.transcript(admitted.session.id);
  t.equal(machine.session_id, admitted.session.id);
  t.same(machine.entries, [entries[0], { ...entries[1], interrupted: false }]);
  t.same(await scope.sessions.transcript(admitted.session.id), machine, 'the console door reads the same');
  const other = await fundedTenant(svc.h);
  const foreign = await new VoiceClient({ baseUrl: svc.baseUrl, apiKey: other.apiKey }).sessions.transcript(admitted.session.id).catch((e: unknown) => e);
  t.ok(foreign instanceof NotFoundError, "another project's session is a NotFoundError");
});
