import { randomUUID } from 'node:crypto';
import t from 'tap';
import { ConsoleClient, createBrowserSession, toArray, VoiceClient, type Webhooks } from '../../packages/sdk/src/index.js';
import { endSession } from '../../src/sessions/settlement.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { startReceiver } from '../fakes/receiver.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { createVerifiedAccount } from '../sessions/fixtures.js';
import { nextNumber, phoneTenant, startBed } from '../telephony/helpers.js';
import { operationOf, operationsOf, recordingFetch } from './recording-fetch.js';
import { localAgentBody } from './service.js';

// Every operation of the served /openapi.json is reached by an SDK method. The walk below drives
// the SDK (both doors, the auth routes, the browser-session door) against the real service with
// Postgres, Redis, webhook workers and a fake Twilio; a recording fetch notes each request, and
// each documented operation must have been answered 2xx through the SDK. A route added later
// without an SDK method (and a step here) fails the last test.

/** Operations no client of the service calls, each with the reason. */
const NOT_CLIENT_OPERATIONS: Record<string, string> = {
  twilioVoiceWebhook: 'called by Twilio, signed with the carrier auth token',
  twilioStatusCallback: 'called by Twilio, signed with the carrier auth token',
  twilioRecordingCallback: 'called by Twilio, signed with the carrier auth token',
  twilioAmdCallback: 'called by Twilio, signed with the carrier auth token',
  telnyxCallControlWebhook: 'called by Telnyx, signed with its Ed25519 key',
  verifyEmailLink: 'the link of the verification e-mail, opened in a browser (ConsoleClient.verifyEmail posts the same token)',
};

const bed = await startBed({ env: { WEBHOOK_RETRY_SCHEDULE_MS: '0,50' } });
const { h, baseUrl } = bed;
const stopWorkers = await startWebhookWorkers(h.ctx, { concurrency: 2, sweepIntervalMs: 100, overdueGraceMs: 1000 });
const failing = await startReceiver();
failing.respond(() => ({ status: 500 }));
t.teardown(async () => {
  await stopWorkers();
  await failing.close();
  await bed.close();
});

const docRes = await fetch(`${baseUrl}/openapi.json`);
const ops = operationsOf((await docRes.json()) as Parameters<typeof operationsOf>[0]);
const { fetch: recording, sent } = recordingFetch();
const opts = { baseUrl, fetch: recording, maxRetries: 0 };

const p = await phoneTenant(bed);
const projectId = p.tenant.projectId;
const machine = new VoiceClient({ ...opts, apiKey: p.tenant.apiKey });

t.test('console auth and projects', async (t) => {
  const email = `sdk-${randomUUID().slice(0, 8)}@example.com`;
  await ConsoleClient.signup({ ...opts, email, password: PASSWORD });
  const token = /verify-email\?token=(\S+)/.exec(h.mailer.sent.at(-1)!.text)![1];
  t.ok((await ConsoleClient.verifyEmail(opts, decodeURIComponent(token))) !== undefined, 'verified');
  const fresh = await ConsoleClient.login({ ...opts, email, password: PASSWORD });
  // expires_in 0: the next request refreshes first.
  const refreshing = new ConsoleClient({ ...opts, tokens: { ...fresh.session!, expires_in: 0 } });
  const made = await refreshing.projects.create({ name: 'walk' });
  t.same((await toArray(refreshing.projects.list())).map((x) => x.id).includes(made.id), true);
  t.equal((await refreshing.projects.get(made.id)).name, 'walk');
  t.equal((await refreshing.projects.update(made.id, { name: 'walked' })).name, 'walked');
  await refreshing.logout();
});

const consoleClient = await ConsoleClient.login({ ...opts, email: p.tenant.email, password: PASSWORD });
const scope = consoleClient.project(projectId);
const accountId = await createVerifiedAccount(h, projectId);
const doors = [
  { name: 'machine door', agents: machine.agents, sessions: machine.sessions, campaigns: machine.campaigns, webhooks: machine.webhooks(projectId), catalogue: () => machine.catalogue() },
  { name: 'console door', agents: scope.agents, sessions: scope.sessions, campaigns: scope.campaigns, webhooks: scope.webhooks, catalogue: () => consoleClient.catalogue() },
];

t.test('keys, provider accounts, wallet and the browser-session door', async (t) => {
  const key = await scope.apiKeys.create({ name: 'walk', scopes: ['voice:read'] });
  t.ok((await toArray(scope.apiKeys.list())).some((k) => k.id === key.id));
  await scope.apiKeys.revoke(key.id);

  const origin = 'https://walk.example.com';
  const pk = await scope.publishableKeys.create({ name: 'web', origins: [origin], agent_ids: [p.agentId] });
  t.ok((await toArray(scope.publishableKeys.list())).some((k) => k.id === pk.id));
  t.equal((await scope.publishableKeys.update(pk.id, { name: 'web 2' })).name, 'web 2');
  const rotated = await scope.publishableKeys.rotate(pk.id);
  const browser = await createBrowserSession({ ...opts, publishableKey: rotated.key, origin }, { agent_id: p.agentId });
  t.match(browser.ws_url, /^ws/);
  await scope.publishableKeys.revoke(pk.id);

  const account = await scope.providerAccounts.create({ provider: 'local', label: 'walk' });
  t.ok((await toArray(scope.providerAccounts.list())).some((a) => a.id === account.id));
  t.equal((await scope.providerAccounts.get(account.id)).id, account.id);
  t.equal((await scope.providerAccounts.update(account.id, { label: 'walked' })).label, 'walked');
  await scope.providerAccounts.verify(account.id);
  await scope.providerAccounts.delete(account.id);

  t.ok((await scope.wallet.get()).balance_nano_usd);
  t.ok((await toArray(scope.wallet.ledger())).length > 0);
});

for (const door of doors) {
  t.test(`${door.name}: catalogue, agents, sessions, transcripts, campaigns`, async (t) => {
    t.ok((await door.catalogue()).length > 0);
    const created = await door.agents.create(localAgentBody(accountId));
    const id = created.agent.id;
    t.ok((await toArray(door.agents.list())).some((a) => a.id === id));
    t.equal((await door.agents.get(id)).id, id);
    await door.agents.update(id, { greeting: 'Hello.' });
    t.equal((await door.agents.version(id, 1)).id, id);
    await door.agents.rotateSecret(id);
    await door.agents.delete(id);

    const admitted = await door.sessions.create({ agent_id: p.agentId }, { idempotencyKey: true });
    const sessionId = admitted.session.id;
    t.ok((await toArray(door.sessions.list({ agent_id: p.agentId }))).some((s) => s.id === sessionId));
    t.equal((await door.sessions.get(sessionId)).id, sessionId);
    await h.ctx.sql`update voice_sessions set store_transcript = true where id = ${sessionId}`;
    await endSession(h.ctx, sessionId, { outcome: 'completed', endReason: 'caller_hangup', transcript: [{ role: 'user', text: 'hi', start_ms: 0, end_ms: 500 }] });
    t.same((await door.sessions.transcript(sessionId)).entries.map((e) => e.text), ['hi']);
    await door.sessions.createOutbound({ agent_id: p.agentId, from: p.from, to: '+14155559999' }, { idempotencyKey: true });

    const campaign = await door.campaigns.create({ name: 'walk', agent_id: p.agentId, from_numbers: [p.from], rows: [{ to: '+12125550100' }] }, { idempotencyKey: true });
    t.ok((await toArray(door.campaigns.list())).some((c) => c.id === campaign.id));
    t.equal((await door.campaigns.get(campaign.id)).rows.length, 1);
    t.equal((await door.campaigns.pause(campaign.id)).status, 'paused');
    t.equal((await door.campaigns.resume(campaign.id)).status, 'running');
    t.equal((await door.campaigns.cancel(campaign.id)).status, 'canceled');
  });
}

/** Waits (through the SDK) until the delivery is a dead letter. */
async function deadLetter(hooks: Webhooks, endpointId: string, deliveryId: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if ((await hooks.deadLetters({ limit: 50 })).some((d) => d.id === deliveryId)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`delivery ${deliveryId} of ${endpointId} never became a dead letter`);
}

for (const door of doors) {
  t.test(`${door.name}: webhook endpoints, deliveries and replay`, async (t) => {
    const hooks = door.webhooks;
    const endpoint = await hooks.create({ name: 'walk', url: failing.url, event_types: ['call.completed'] });
    t.ok((await toArray(hooks.list())).some((e) => e.id === endpoint.id));
    const ping = await hooks.test(endpoint.id);
    await deadLetter(hooks, endpoint.id, ping.delivery_id);
    t.ok((await toArray(hooks.deliveries({ endpoint_id: endpoint.id }))).some((d) => d.id === ping.delivery_id));
    t.equal((await hooks.replay(endpoint.id, ping.delivery_id)).replay_of, ping.delivery_id);
    t.equal((await hooks.update(endpoint.id, { name: 'walked' })).name, 'walked');
    t.equal((await hooks.disable(endpoint.id)).status, 'disabled');
  });
}

t.test('carriers and numbers', async (t) => {
  const account = bed.fake.addAccount();
  const carrier = await scope.carriers.create({ kind: 'twilio', label: 'walk', credentials: { account_sid: account.sid, auth_token: account.token }, base_url: bed.fake.baseUrl });
  t.ok((await toArray(scope.carriers.list())).some((c) => c.id === carrier.id));
  t.equal((await scope.carriers.get(carrier.id)).id, carrier.id);
  t.equal((await scope.carriers.update(carrier.id, { label: 'walked' })).label, 'walked');
  t.equal((await scope.carriers.verify(carrier.id)).status, 'verified');
  const e164 = nextNumber();
  bed.fake.addNumber(account.sid, e164);
  t.same((await scope.carriers.incomingNumbers(carrier.id)).numbers.map((n) => n.e164), [e164]);
  const numbers = scope.carriers.numbers(carrier.id);
  const num = await numbers.create({ e164, outbound_enabled: true });
  t.same((await toArray(numbers.list())).map((n) => n.id), [num.id]);
  t.equal((await numbers.get(num.id)).e164, e164);
  t.equal((await numbers.update(num.id, { outbound_enabled: false })).outbound_enabled, false);
  await numbers.sync(num.id);
  await numbers.delete(num.id);
  await scope.carriers.delete(carrier.id);
});

t.test('every operation of the served document is reached by an SDK method', async (t) => {
  const documented = new Set(ops.map((o) => o.operationId));
  t.same(Object.keys(NOT_CLIENT_OPERATIONS).filter((id) => !documented.has(id)), [], 'every exclusion names a documented operation');
  const answered = new Set(sent.filter((s) => s.status >= 200 && s.status < 300).map((s) => operationOf(ops, s)?.operationId));
  const unmatched = sent.filter((s) => !operationOf(ops, s)).map((s) => `${s.method} ${s.path}`);
  t.same(unmatched, [], 'the SDK sends no request outside the document');
  const missing = ops.filter((o) => !(o.operationId in NOT_CLIENT_OPERATIONS) && !answered.has(o.operationId)).map((o) => `${o.operationId}: ${o.method} ${o.path}`);
  t.same(missing, [], 'operations no SDK method reached (add the method, and a step above)');
  t.comment(`${answered.size} of ${ops.length} operations answered 2xx through the SDK; ${Object.keys(NOT_CLIENT_OPERATIONS).length} are not client operations`);
});
