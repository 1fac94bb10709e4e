import t from 'tap';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { decodeClientState, encodeClientState } from '../../src/carriers/telnyx/media-stream-protocol.js';
import { REFUSALS } from '../../src/carriers/twilio/twiml.js';
import { telnyxStreamRoute } from '../../src/media/telnyx-stream-route.js';
import { startMediaNode } from '../../src/roles/media.js';
import { processDial } from '../../src/telephony/dial.js';
import { startHarness } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { startFakeTelnyx, type FakeTelnyxAccount, type FakeTelnyxCall } from '../fakes/telnyx/rest.js';
import { postEvent, sendCallEvent, sendRecordingSaved } from '../fakes/telnyx/webhooks.js';
import { FakeTelnyxStream, FRAME_BYTES } from '../fakes/telnyx/media-client.js';
import { tone } from '../fakes/twilio/mulaw.js';
import { nextNumber, sessionRow, until } from './helpers.js';
import { testPipelines } from './pipelines.js';

// Telnyx behind the same carrier interface, against a fake that speaks Telnyx's documented wire
// protocol (REST v2, Ed25519-signed Call Control webhooks, media streaming frames): the same
// flows as Twilio's tests — credentials and verification, numbers configured at the carrier,
// outbound, inbound (admitted or refused out loud), barge-in, recording, bad signatures.

const h = await startHarness();
await h.app.listen({ port: 0, host: '127.0.0.1' });
const baseUrl = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
h.ctx.config.PUBLIC_BASE_URL = baseUrl;
const fake = await startFakeTelnyx();
const pipelines = testPipelines();
const nodeId = randomUUID();
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', nodeId, routes: [telnyxStreamRoute(h.ctx, nodeId)], pipelineFactory: pipelines.factory });
h.ctx.config.PUBLIC_MEDIA_URL = `ws://127.0.0.1:${media.port}`;
t.teardown(async () => {
  await media.drain(0);
  await fake.close();
  await h.close();
});

interface Line {
  tenant: Tenant;
  account: FakeTelnyxAccount;
  carrierId: string;
  agentId: string;
  from: string;
  numberId: string;
}

const carriersUrl = (tenant: Tenant) => `/console/v2/projects/${tenant.projectId}/carriers`;
const webhookUrl = (carrierId: string) => `${baseUrl}/v2/carriers/telnyx/${carrierId}/webhook`;

/** A funded tenant with a verified Telnyx carrier on the fake, an agent and a number (bound when `inbound`). */
async function telnyxLine(opts: { inbound?: boolean; record?: boolean; agentActive?: boolean } = {}): Promise<Line> {
  const tenant = await createTenant(h);
  const account = fake.addAccount();
  const created = await h.app.inject({
    method: 'POST',
    url: carriersUrl(tenant),
    headers: tenant.bearer,
    payload: { kind: 'telnyx', label: 'telnyx line', credentials: { api_key: account.apiKey, public_key: account.publicKey }, base_url: fake.baseUrl },
  });
  if (created.statusCode !== 201) throw new Error(`carrier ${created.statusCode}: ${created.body}`);
  const carrierId = created.json().id as string;
  const verified = await h.app.inject({ method: 'POST', url: `${carriersUrl(tenant)}/${carrierId}/verify`, headers: tenant.bearer });
  if (verified.json().status !== 'verified') throw new Error(`not verified: ${verified.body}`);
  const agent = await createAgent(h, tenant.projectId, { record: opts.record ?? false, storeTranscript: false, maxDurationSeconds: 120, active: opts.agentActive ?? true });
  const from = nextNumber();
  fake.addNumber(account.apiKey, from, null);
  const num = await h.app.inject({
    method: 'POST',
    url: `${carriersUrl(tenant)}/${carrierId}/numbers`,
    headers: tenant.bearer,
    payload: { e164: from, outbound_enabled: true, agent_id: opts.inbound ? agent.agentId : null },
  });
  if (num.statusCode !== 201) throw new Error(`number ${num.statusCode}: ${num.body}`);
  await fund(h, tenant.projectId, 1000n * MINUTE_NANO);
  return { tenant, account, carrierId, agentId: agent.agentId, from, numberId: num.json().id };
}

/** Admits an outbound call through the machine door and dials it; the fake's call. */
async function dial(line: Line, body: Record<string, unknown> = {}): Promise<{ sessionId: string; call: FakeTelnyxCall }> {
  const res = await h.app.inject({
    method: 'POST',
    url: '/v2/voice/sessions/outbound',
    headers: line.tenant.machine,
    payload: { agent_id: line.agentId, from: line.from, to: '+14155559999', ...body },
  });
  if (res.statusCode !== 202) throw new Error(`outbound ${res.statusCode}: ${res.body}`);
  const sessionId = res.json().session.id as string;
  const outcome = await processDial(h.ctx, sessionId);
  if (outcome.kind !== 'dialed') throw new Error(`dial ${JSON.stringify(outcome)}`);
  return { sessionId, call: fake.calls.find((c) => c.callControlId === outcome.callSid)! };
}

/** Telnyx opening the call's media stream (the stream_url and client_state of our dial or answer). */
async function openStream(call: FakeTelnyxCall, over: { clientState?: string | null; callControlId?: string } = {}): Promise<FakeTelnyxStream> {
  const stream = await FakeTelnyxStream.connect(String(call.params.stream_url), {
    callControlId: over.callControlId ?? call.callControlId,
    clientState: over.clientState === undefined ? call.clientState : over.clientState,
    from: call.from,
    to: call.to,
  });
  stream.begin();
  return stream;
}

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / Math.max(1, pcm.length));

t.test('credentials: create shows the public key and a hint, seals the API key, verifies with one read-only call', async (t) => {
  const tenant = await createTenant(h);
  const account = fake.addAccount();
  const res = await h.app.inject({
    method: 'POST',
    url: carriersUrl(tenant),
    headers: tenant.bearer,
    payload: { kind: 'telnyx', label: 'tx', credentials: { api_key: account.apiKey, public_key: account.publicKey }, base_url: fake.baseUrl },
  });
  t.equal(res.statusCode, 201);
  const c = res.json();
  t.same(Object.keys(c).sort(), ['base_url', 'connection_id', 'created_at', 'id', 'kind', 'label', 'project_id', 'public_key', 'revision', 'status', 'status_detail', 'token_hint', 'updated_at']);
  t.match(c, { kind: 'telnyx', public_key: account.publicKey, connection_id: null, token_hint: account.apiKey.slice(-4), status: 'unverified' });
  t.notMatch(res.body, account.apiKey);
  const [row] = await h.ctx.sql`select credentials_sealed from carriers where id = ${c.id}`;
  t.notMatch(row.credentials_sealed, account.apiKey);

  const verify = await h.app.inject({ method: 'POST', url: `${carriersUrl(tenant)}/${c.id}/verify`, headers: tenant.bearer });
  t.match(verify.json(), { status: 'verified', status_detail: null });
  const req = fake.requests.at(-1)!;
  t.match(req, { method: 'GET', path: '/v2/call_control_applications' });
  t.equal(req.headers.authorization, `Bearer ${account.apiKey}`);

  const wrong = await h.app.inject({ method: 'PATCH', url: `${carriersUrl(tenant)}/${c.id}`, headers: tenant.bearer, payload: { credentials: { api_key: 'KEYnotavalidkey_x', public_key: account.publicKey } } });
  t.equal(wrong.statusCode, 200);
  t.match((await h.app.inject({ method: 'POST', url: `${carriersUrl(tenant)}/${c.id}/verify`, headers: tenant.bearer })).json(), { status: 'invalid', status_detail: /HTTP 401/ });

  const cases: [object, (string | number)[]][] = [
    [{ kind: 'telnyx', label: 'x', credentials: { api_key: account.apiKey, public_key: 'not-a-key' } }, ['body', 'credentials', 'public_key']],
    [{ kind: 'telnyx', label: 'x', credentials: { api_key: account.apiKey } }, ['body', 'credentials', 'public_key']],
    [{ kind: 'telnyx', label: 'x', credentials: { account_sid: `AC${'a'.repeat(32)}`, auth_token: 'x'.repeat(32) } }, ['body', 'credentials', 'api_key']],
  ];
  for (const [payload, loc] of cases) {
    const bad = await h.app.inject({ method: 'POST', url: carriersUrl(tenant), headers: tenant.bearer, payload });
    t.equal(bad.statusCode, 422);
    t.same(bad.json().detail[0].loc, loc);
  }
  const twilioCreds = await h.app.inject({ method: 'PATCH', url: `${carriersUrl(tenant)}/${c.id}`, headers: tenant.bearer, payload: { credentials: { account_sid: `AC${'a'.repeat(32)}`, auth_token: 'x'.repeat(32) } } });
  t.equal(twilioCreds.statusCode, 422, "another kind's credentials");
  t.same(twilioCreds.json().detail[0].loc[0], 'body');
});

t.test('numbers: binding assigns the number to our Call Control application; unbinding puts the old connection back', async (t) => {
  const line = await telnyxLine();
  const e164 = nextNumber();
  const before = fake.addApplication(line.account.apiKey, 'https://other-app.example.com/telnyx');
  const n = fake.addNumber(line.account.apiKey, e164, before.id);
  const res = await h.app.inject({ method: 'POST', url: `${carriersUrl(line.tenant)}/${line.carrierId}/numbers`, headers: line.tenant.bearer, payload: { e164, outbound_enabled: false, agent_id: line.agentId } });
  t.equal(res.statusCode, 201);
  t.match(res.json(), { voice_url: webhookUrl(line.carrierId), carrier_configured: true, carrier_error: null });
  const app = fake.applications.find((a) => a.apiKey === line.account.apiKey && a.id !== before.id)!;
  t.equal(app.webhookUrl, webhookUrl(line.carrierId), 'the application created with our webhook');
  t.equal(n.connectionId, app.id);
  const carrier = (await h.app.inject({ method: 'GET', url: `${carriersUrl(line.tenant)}/${line.carrierId}`, headers: line.tenant.bearer })).json();
  t.equal(carrier.connection_id, app.id);
  const patch = fake.requests.find((r) => r.method === 'PATCH' && r.path === `/v2/phone_numbers/${n.id}`)!;
  t.same(patch.json, { connection_id: app.id });

  const unbound = await h.app.inject({ method: 'PATCH', url: `${carriersUrl(line.tenant)}/${line.carrierId}/numbers/${res.json().id}`, headers: line.tenant.bearer, payload: { agent_id: null } });
  t.match(unbound.json(), { carrier_configured: false, carrier_error: null });
  t.equal(n.connectionId, before.id);
  t.equal(before.webhookUrl, 'https://other-app.example.com/telnyx', "the customer's application is not touched");
  t.equal(fake.applications.filter((a) => a.apiKey === line.account.apiKey).length, 2, 'one application of ours per carrier');

  const listing = await h.app.inject({ method: 'GET', url: `${carriersUrl(line.tenant)}/${line.carrierId}/incoming-numbers?page_size=1`, headers: line.tenant.bearer });
  t.equal(listing.statusCode, 200);
  t.equal(listing.json().numbers.length, 1);
  t.equal(listing.json().next_page_token, '2');
  const last = (await h.app.inject({ method: 'GET', url: `${carriersUrl(line.tenant)}/${line.carrierId}/incoming-numbers?page_size=1&page_token=2`, headers: line.tenant.bearer })).json();
  t.same([listing.json().numbers[0].e164, last.numbers[0].e164], [line.from, e164]);
  t.equal(last.next_page_token, null);
});

t.test('outbound: dialed through Call Control with our stream, answered, echoed PCMU both ways, hung up', async (t) => {
  const line = await telnyxLine();
  const { sessionId, call } = await dial(line);
  const app = fake.applications.find((a) => a.apiKey === line.account.apiKey)!;
  t.match(call.params, {
    connection_id: app.id,
    to: '+14155559999',
    from: line.from,
    stream_url: `ws://127.0.0.1:${media.port}/v2/carriers/telnyx/stream`,
    stream_track: 'inbound_track',
    stream_bidirectional_mode: 'rtp',
    stream_bidirectional_codec: 'PCMU',
    webhook_url: webhookUrl(line.carrierId),
    webhook_url_method: 'POST',
    timeout_secs: 60,
  });
  t.notOk('record' in call.params, 'no recording asked');
  t.match(decodeClientState(call.clientState), { sessionId });
  t.match(await sessionRow(h, sessionId), { carrier_call_sid: call.callControlId, status: 'created' });

  t.equal((await sendCallEvent(fake, call, 'call.initiated')).status, 200);
  t.equal((await sendCallEvent(fake, call, 'call.answered')).status, 200);
  t.match(await sessionRow(h, sessionId), { status: 'active', carrier_status: 'in-progress', media_connected_at: null });

  const stream = await openStream(call);
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'media connected');
  await stream.playPcm(tone(440, 1000), { realtime: true });
  await stream.waitFor((s) => s.messages('media').length >= 40, 3000, 'echo');
  for (const m of stream.messages('media')) t.same(Object.keys(m.json).sort(), ['event', 'media'], 'Telnyx media frames: {event, media: {payload}}');
  t.ok(stream.messages('media').every((m) => Buffer.from(String((m.json.media as { payload: string }).payload), 'base64').length === FRAME_BYTES), '20 ms of PCMU per frame');
  t.ok(rms(stream.receivedPcm().subarray(800, 4000)) > 3000, "the callee's tone came back");
  t.equal(stream.garbage.length, 0);

  await stream.hangUp();
  await media.idle();
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'caller_hangup' });
  t.equal((await sendCallEvent(fake, call, 'call.hangup')).status, 200, 'the late hangup event is acknowledged');
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'caller_hangup' });
});

t.test('outbound: busy and no answer end the session with their reasons', async (t) => {
  const line = await telnyxLine();
  for (const [cause, reason] of [['user_busy', 'busy'], ['timeout', 'no_answer'], ['call_rejected', 'carrier_error']]) {
    const { sessionId, call } = await dial(line);
    await sendCallEvent(fake, call, 'call.initiated');
    await sendCallEvent(fake, call, 'call.hangup', { hangup_cause: cause });
    t.match(await sessionRow(h, sessionId), { status: 'failed', end_reason: reason }, cause);
  }
});

t.test('barge-in: the callee talking over the agent gets a Telnyx `clear`', async (t) => {
  const line = await telnyxLine();
  const { sessionId, call } = await dial(line, { metadata: { pipeline: 'talker' } });
  await sendCallEvent(fake, call, 'call.answered');
  const stream = await openStream(call);
  await stream.waitFor((s) => s.messages('media').length >= 10, 5000, 'the greeting');
  t.equal(stream.clears(), 0);
  await stream.playPcm(tone(300, 400, 8000, 12000), { realtime: true });
  await stream.waitFor((s) => s.clears() > 0, 3000, 'clear');
  t.same(stream.messages('clear')[0].json, { event: 'clear' });
  t.equal(pipelines.talkers.get(sessionId)?.bargeIns, 1);
  stream.sendDtmf('#');
  await stream.waitForClose();
  await media.idle();
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'agent_hangup' });
  t.same(pipelines.talkers.get(sessionId)?.digits, ['#'], 'DTMF frames reach the call');
});

t.test('recording: dialed with record-from-answer; call.recording.saved names the recording', async (t) => {
  const line = await telnyxLine({ record: true });
  const { sessionId, call } = await dial(line, { record: true });
  t.match(call.params, { record: 'record-from-answer', record_format: 'wav', record_channels: 'single' });
  t.same((await sessionRow(h, sessionId)).recording_ref, { provider: 'telnyx', reference_id: null, url: null, fetched_from: 'carrier' });
  await sendCallEvent(fake, call, 'call.answered');
  const stream = await openStream(call);
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'media connected');
  await stream.hangUp();
  await media.idle();
  const rec = await sendRecordingSaved(fake, call);
  t.equal(rec.status, 200);
  const ref = { provider: 'telnyx', reference_id: rec.recordingId, url: rec.url, fetched_from: 'carrier' };
  t.same((await sessionRow(h, sessionId)).recording_ref, ref);
  const info = await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${sessionId}`, headers: line.tenant.machine });
  t.same(info.json().recording_ref, ref, 'in the session document');
});

t.test('inbound: call.initiated to a bound number is answered with our stream and the agent takes the call', async (t) => {
  const line = await telnyxLine({ inbound: true });
  const call = fake.ringNumber(line.account.apiKey, '+12025550123', line.from);
  t.equal(call.webhookUrl, webhookUrl(line.carrierId), 'the number routes to our application');
  t.equal((await sendCallEvent(fake, call, 'call.initiated')).status, 200);
  t.equal(call.actions.length, 1);
  t.match(call.actions[0], { action: 'answer', body: { stream_url: `ws://127.0.0.1:${media.port}/v2/carriers/telnyx/stream`, stream_track: 'inbound_track', stream_bidirectional_mode: 'rtp', stream_bidirectional_codec: 'PCMU' } });
  const claim = decodeClientState(call.clientState) as { sessionId: string };
  t.match(await sessionRow(h, claim.sessionId), { direction: 'inbound', status: 'created', agent_id: line.agentId, carrier_id: line.carrierId, carrier_call_sid: call.callControlId, from_e164: '+12025550123', to_e164: line.from });

  await sendCallEvent(fake, call, 'call.answered');
  const stream = await openStream(call);
  await until(async () => (await sessionRow(h, claim.sessionId)).media_connected_at !== null, 5000, 'media connected');
  await stream.playPcm(tone(440, 600), { realtime: true });
  await stream.waitFor((s) => s.messages('media').length >= 20, 3000, 'echo');
  await stream.hangUp();
  await media.idle();
  t.match(await sessionRow(h, claim.sessionId), { status: 'completed', end_reason: 'caller_hangup', direction: 'inbound' });
});

t.test('inbound refusal is polite on the phone: answered, the sentence spoken, then hung up', async (t) => {
  const line = await telnyxLine({ inbound: true, agentActive: false });
  const call = fake.ringNumber(line.account.apiKey, '+12025550123', line.from);
  await sendCallEvent(fake, call, 'call.initiated');
  t.equal(call.actions.length, 1);
  t.equal(call.actions[0].action, 'answer');
  t.notOk('stream_url' in call.actions[0].body, 'no media stream for a refused call');
  t.same(decodeClientState(call.clientState), { refusal: 'unavailable' });
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where carrier_call_sid = ${call.callControlId}`;
  t.equal(n, 0, 'no session');

  await sendCallEvent(fake, call, 'call.answered');
  t.match(call.actions[1], { action: 'speak', body: { payload: REFUSALS.unavailable, voice: 'female', language: 'en-US' } });
  await sendCallEvent(fake, call, 'call.speak.ended');
  t.equal(call.actions[2].action, 'hangup');
  t.equal(call.alive, false);
});

t.test('webhooks: a bad, stale, tampered, foreign or missing signature is 403 and changes nothing', async (t) => {
  const line = await telnyxLine({ inbound: true });
  const other = fake.addAccount();
  const url = webhookUrl(line.carrierId);
  const payload = { call_control_id: 'v3:forged', direction: 'incoming', from: '+12025550123', to: line.from, client_state: null };
  const zero = Buffer.alloc(64).toString('base64');
  for (const [what, opts] of [
    ['forged signature', { signature: zero }],
    ['stale timestamp', { skewSeconds: -600 }],
    ['future timestamp', { skewSeconds: 600 }],
    ['tampered body', { tamper: (raw: string) => raw.replace(line.from, '+19995550000') }],
    ["another account's key", { signer: other }],
    ['garbage signature', { signature: 'not base64!' }],
  ] as const) {
    const res = await postEvent(line.account, url, 'call.initiated', payload, opts);
    t.equal(res.status, 403, what);
    t.match(JSON.parse(res.body), { detail: /telnyx-signature-ed25519/ }, what);
  }
  const bare = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ data: { event_type: 'call.initiated', payload } }) });
  t.equal(bare.status, 403, 'no signature headers');
  const unknownCarrier = await postEvent(line.account, webhookUrl(randomUUID()), 'call.initiated', payload);
  t.equal(unknownCarrier.status, 403, 'a carrier that is not there');
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where carrier_call_sid = 'v3:forged'`;
  t.equal(n, 0);
  const fine = await postEvent(line.account, url, 'call.bridged', payload);
  t.equal(fine.status, 200, 'a signed event we do not use is acknowledged');
  const notEvent = await postEvent(line.account, url, 'x', payload, { tamper: () => '{"hello":1}', signature: undefined });
  t.equal(notEvent.status, 403, 'the signature covers the exact bytes');
});

t.test('media socket: a start without our client_state, or with a wrong token, is refused', async (t) => {
  const line = await telnyxLine();
  const { sessionId, call } = await dial(line);
  const none = await openStream(call, { clientState: null });
  await none.waitForClose();
  t.equal(none.closeCode, 4401);
  const wrong = await openStream(call, { clientState: encodeClientState({ sessionId, token: 'x'.repeat(43) }) });
  await wrong.waitForClose();
  t.not(wrong.closeCode, 1000);
  t.equal((await sessionRow(h, sessionId)).media_connected_at, null);
});
