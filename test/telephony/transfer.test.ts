import t from 'tap';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { createAgent } from '../../src/agents/service.js';
import { createCarrierConnection, verifyCarrier } from '../../src/carriers/accounts.js';
import { AgentCreateBody } from '../../src/contract/agents.js';
import { createCarrierNumber } from '../../src/db/repos/carrier-numbers.js';
import { telnyxStreamRoute } from '../../src/media/telnyx-stream-route.js';
import { twilioStreamRoute } from '../../src/media/twilio-stream-route.js';
import { startMediaNode } from '../../src/roles/media.js';
import { walletCredit } from '../../src/sessions/wallet.js';
import { ManualClock } from '../../src/shared/clock.js';
import { processDial } from '../../src/telephony/dial.js';
import { admitOutbound } from '../../src/telephony/outbound.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { startHarness } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { startFakeTwilio, type FakeAccount, type PlacedCall } from '../fakes/twilio/rest.js';
import { verifyDelivery } from '../fakes/receiver.js';
import { startFakeTelnyx } from '../fakes/telnyx/rest.js';
import { sendCallEvent } from '../fakes/telnyx/webhooks.js';
import { FakeTelnyxStream } from '../fakes/telnyx/media-client.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { chatChunk, writeChatStream } from '../fakes/wire/openai.js';
import { call as webCall, openAiPipeline, speech } from '../conversation/fixtures.js';
import { createEndpoint, receiverPool } from '../webhooks/support.js';
import { openStream, sessionRow, until } from './helpers.js';

// Transfer to a person (issue 20, contract §11) through the real service: a phone call on the
// conversation engine (OpenAI wire fakes) over the fake Twilio; the model calls transfer_call.
// Cold: the caller's call is updated with <Dial>. Warm: the person is called first with the
// summary and a conference, the caller joins once they answer; no answer → the model is told
// and the call goes on. The session ends completed / transferred, billed to the hand-over, with a
// call.transferred webhook to endpoints that subscribe to it.

/** Real time, plus whatever the test adds (billing must stop at the hand-over, not at the stream's end). */
class ShiftClock extends ManualClock {
  offsetMs = 0;
  override now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
}
const clock = new ShiftClock();
const h = await startHarness({ clock });
await h.app.listen({ port: 0, host: '127.0.0.1' });
h.ctx.config.PUBLIC_BASE_URL = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
const twilio = await startFakeTwilio();
const telnyx = await startFakeTelnyx();
const providers = await startProviderFakes();
const nodeId = randomUUID();
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1', nodeId, pipeline: 'agent', routes: [twilioStreamRoute(h.ctx, nodeId), telnyxStreamRoute(h.ctx, nodeId)] });
h.ctx.config.PUBLIC_MEDIA_URL = `ws://127.0.0.1:${media.port}`;
const stopWorkers = await startWebhookWorkers(h.ctx, { concurrency: 2, sweepIntervalMs: 100, overdueGraceMs: 1000 });
const { receiver, closeAll } = receiverPool();
t.teardown(async () => {
  await stopWorkers();
  await closeAll();
  await media.drain(0);
  await twilio.close();
  await telnyx.close();
  await providers.close();
  await h.close();
});

const BILLING = { name: 'Billing', e164: '+14155550100', description: 'invoices, refunds and payments' };
const SALES = { name: 'Sales', e164: '+14155550101', description: 'new orders' };
const RATE = 5_000_000n;

type Chunks = unknown[];
const text = (s: string): Chunks => [chatChunk({ role: 'assistant', content: '' }), chatChunk({ content: s }), chatChunk({}, 'stop')];
const toolCall = (name: string, args: object, content: string): Chunks => [
  chatChunk({ role: 'assistant', content }),
  chatChunk({ tool_calls: [{ index: 0, id: `call_${name}`, type: 'function', function: { name, arguments: '' } }] }),
  chatChunk({ tool_calls: [{ index: 0, function: { arguments: JSON.stringify(args) } }] }),
  chatChunk({}, 'tool_calls'),
];
interface ChatBody {
  messages: { role: string; content: string | null }[];
  tools?: { function: { name: string; parameters: Record<string, unknown> } }[];
}
/** The chat fake answers each request with the next script entry (then "Okay."). */
function scriptChat(answers: Chunks[]): ChatBody[] {
  const bodies: ChatBody[] = [];
  providers.on('POST /v1/chat/completions', (req, res) => {
    bodies.push(JSON.parse(req.body.toString()) as ChatBody);
    return writeChatStream(res, answers.shift() ?? text('Okay.'));
  });
  return bodies;
}

interface Line {
  tenant: Tenant;
  account: FakeAccount;
  agentId: string;
  from: string;
}
let seq = 200;

/** A funded tenant with a verified Twilio carrier, an outbound number and an agent that may transfer. */
async function line(fields: Record<string, unknown> = {}): Promise<Line> {
  const tenant = await createTenant(h);
  await walletCredit(h.ctx, tenant.projectId, 1000n * RATE);
  const pipeline = await openAiPipeline(h, tenant.projectId, providers.baseUrl);
  const body = AgentCreateBody.parse({ name: 'desk', prompt: 'You answer the phone.', pipeline_mode: 'cascade', pipeline_config: pipeline, language: 'en-US', backchannel: false, transfer_destinations: [BILLING, SALES], ...fields });
  const agent = await createAgent(h.ctx, tenant.projectId, body);
  const account = twilio.addAccount();
  const carrier = await createCarrierConnection(h.ctx, tenant.projectId, { kind: 'twilio', label: 'line', credentials: { account_sid: account.sid, auth_token: account.token }, base_url: twilio.baseUrl });
  await verifyCarrier(h.ctx, tenant.projectId, carrier.id);
  const from = `+1415556${String(seq++).padStart(4, '0')}`;
  await createCarrierNumber(h.ctx, tenant.projectId, carrier.id, { e164: from, outboundEnabled: true, agentId: null });
  return { tenant, account, agentId: agent.agent.id, from };
}

/** An answered outbound call whose stream runs: the callee's phone. */
async function answeredCall(l: Line) {
  const admitted = await admitOutbound(h.ctx, l.tenant.projectId, { agent_id: l.agentId, from: l.from, to: '+14155557777', variables: {} });
  const sessionId = admitted.session.id;
  const outcome = await processDial(h.ctx, sessionId);
  if (outcome.kind !== 'dialed') throw new Error(`dial ${JSON.stringify(outcome)}`);
  const call = twilio.calls.find((c) => c.sid === outcome.callSid)!;
  await sendStatusCallback(twilio, call.sid, 'ringing');
  await sendStatusCallback(twilio, call.sid, 'in-progress');
  twilio.setCallStatus(call.sid, 'in-progress');
  const phone = await openStream(call, l.account);
  phone.startLine();
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'stream connected');
  return { sessionId, call, phone };
}

/** Twilio runs an update of a live call: a <Connect><Stream> in progress stops (stop, then close). */
function twilioStopsStreamOnUpdate(call: PlacedCall, phone: Awaited<ReturnType<typeof answeredCall>>['phone'], before?: () => void) {
  twilio.onCallUpdate = (c, form) => {
    if (c.sid !== call.sid || !form.Twiml) return;
    before?.();
    void phone.hangUp();
  };
}

const toolNames = (b: ChatBody) => (b.tools ?? []).map((x) => x.function.name);

t.test('cold transfer: <Dial> through the call update API; completed / transferred, billed to the hand-over, call.transferred delivered', async (t) => {
  const chat = scriptChat([toolCall('transfer_call', { destination: 'Billing', mode: 'cold' }, 'I will put you through to billing now.')]);
  providers.script.transcripts = ['i have a question about my invoice'];
  const l = await line();
  const rx = await receiver();
  const ep = await createEndpoint(h, l.tenant, rx.url, ['call.transferred']);
  const { sessionId, call, phone } = await answeredCall(l);
  // Twilio stops our stream when the call moves on; the stream's end comes 4 minutes "later"
  // (within Standard Webhooks' 5-minute timestamp tolerance, as the clock stays moved).
  twilioStopsStreamOnUpdate(call, phone, () => (clock.offsetMs += 240_000));

  phone.say(speech('I have a question about my invoice.', 8000), 'ask');
  await phone.waitForClose(30_000);
  await media.idle();

  t.ok(toolNames(chat[0]).includes('transfer_call'), 'a phone call offers transfer_call');
  const offered = chat[0].tools!.find((x) => x.function.name === 'transfer_call')!.function.parameters as { properties: { destination: { enum: string[] } } };
  t.same(offered.properties.destination.enum, ['Billing', 'Sales']);
  t.equal(call.updates.length, 1);
  const twiml = call.updates[0].Twiml[0];
  t.equal(twiml, `<?xml version="1.0" encoding="UTF-8"?><Response><Dial callerId="${l.from}" timeout="30"><Number>${BILLING.e164}</Number></Dial></Response>`);
  const heardBefore = phone.messages('media').filter((m) => m.atMs > phone.saidAt.get('ask')!).length;
  t.ok(heardBefore > 50, `the caller heard the agent's words before the hand-over (${heardBefore} media messages)`);

  const row = await sessionRow(h, sessionId);
  t.match(row, { status: 'completed', end_reason: 'transferred' });
  t.same(row.transfer, { destination: 'Billing', e164: BILLING.e164, mode: 'cold' });
  t.equal(row.media_disconnected_at.getTime(), row.transferred_at.getTime(), 'the media is billed to the hand-over');
  t.ok(row.connected_seconds < 60, `connected ${row.connected_seconds} s, not the 4 minutes until the stream ended`);
  t.equal(BigInt(row.cost_nano_usd), RATE, 'one minute billed');

  // The carrier's final status callback (the person talked for ten minutes) changes nothing.
  await sendStatusCallback(twilio, call.sid, 'completed', { durationSeconds: 600 });
  t.equal(BigInt((await sessionRow(h, sessionId)).cost_nano_usd), RATE);

  const [got] = await rx.waitFor(1);
  const event = verifyDelivery(ep.signing_secret, got);
  t.equal(event.type, 'call.transferred');
  t.match(event.data, { session: { id: sessionId, status: 'completed', end_reason: 'transferred' }, transfer: { destination: 'Billing', e164: BILLING.e164, mode: 'cold' } });
  t.equal((event.data.transfer as { transferred_at: string }).transferred_at, row.transferred_at.toISOString());
  await new Promise((r) => setTimeout(r, 300));
  t.equal(rx.received.length, 1, 'the endpoint subscribed to call.transferred only: no call.completed');
  const [completed] = await h.ctx.sql`select count(*)::int as n from webhook_events where project_id = ${l.tenant.projectId} and type = 'call.completed'`;
  t.equal(completed.n, 1, 'call.completed is recorded as for any call');
  twilio.onCallUpdate = null;
});

t.test('warm transfer: the person is called with the summary, answers, and the caller joins the conference', async (t) => {
  const summary = 'Ann wants a refund for order 42.';
  scriptChat([toolCall('transfer_call', { destination: 'billing', mode: 'warm', summary }, 'Let me get someone from billing for you, one moment.')]);
  providers.script.transcripts = ['i want a refund'];
  const l = await line();
  const { sessionId, call, phone } = await answeredCall(l);
  twilioStopsStreamOnUpdate(call, phone);
  phone.say(speech('I want a refund.', 8000), 'ask');

  await until(() => twilio.calls.some((c) => c.form.To?.[0] === BILLING.e164 && c.accountSid === l.account.sid), 30_000, 'the person called');
  const leg = twilio.calls.find((c) => c.form.To?.[0] === BILLING.e164 && c.accountSid === l.account.sid)!;
  t.equal(leg.form.From[0], l.from, 'called from our number');
  t.equal(leg.form.Timeout[0], '30');
  const room = `transfer-${sessionId}`;
  t.equal(
    leg.form.Twiml[0],
    `<?xml version="1.0" encoding="UTF-8"?><Response><Say language="en-US">Hello Billing, this is the virtual assistant with a caller for you. ${summary}</Say>` +
      `<Dial><Conference beep="false" startConferenceOnEnter="true" endConferenceOnExit="true">${room}</Conference></Dial></Response>`,
    'the person hears the summary, then enters the conference',
  );
  twilio.setCallStatus(leg.sid, 'ringing');
  await new Promise((r) => setTimeout(r, 1200));
  t.equal(call.updates.length, 0, 'the caller stays with the agent while the person rings');
  t.equal((await sessionRow(h, sessionId)).status, 'active');

  twilio.setCallStatus(leg.sid, 'in-progress');
  await phone.waitForClose(10_000);
  await media.idle();
  t.equal(call.updates.length, 1);
  t.equal(
    call.updates[0].Twiml[0],
    `<?xml version="1.0" encoding="UTF-8"?><Response><Dial><Conference beep="false" startConferenceOnEnter="false" endConferenceOnExit="true">${room}</Conference></Dial></Response>`,
    'the caller joins the same conference (waiting until the person enters)',
  );
  t.equal(leg.updates.length, 0, 'the answered leg is left alone');
  const row = await sessionRow(h, sessionId);
  t.match(row, { status: 'completed', end_reason: 'transferred', transfer: { destination: 'Billing', mode: 'warm' } });
  const [ev] = await h.ctx.sql`select data from webhook_events where project_id = ${l.tenant.projectId} and type = 'call.transferred'`;
  t.match(ev.data, { session: { id: sessionId, end_reason: 'transferred' }, transfer: { destination: 'Billing', e164: BILLING.e164, mode: 'warm' } });
  twilio.onCallUpdate = null;
});

t.test('warm transfer nobody answers: the model is told, the caller hears it, the call goes on', async (t) => {
  const chat = scriptChat([
    toolCall('transfer_call', { destination: 'Sales', mode: 'warm' }, 'Let me try sales for you.'),
    text('Sorry, nobody from sales is available right now. Can I help you myself?'),
  ]);
  providers.script.transcripts = ['i want to order', 'thanks'];
  const l = await line({ transfer_timeout_seconds: 5 });
  const { sessionId, call, phone } = await answeredCall(l);
  phone.say(speech('I want to order.', 8000), 'ask');
  await until(() => twilio.calls.some((c) => c.form.To?.[0] === SALES.e164 && c.accountSid === l.account.sid), 30_000, 'the person called');
  const leg = twilio.calls.find((c) => c.form.To?.[0] === SALES.e164 && c.accountSid === l.account.sid)!;
  t.equal(leg.form.Timeout[0], '5', "the agent's transfer_timeout_seconds");
  t.match(leg.form.Twiml[0], /The caller said: i want to order<\/Say>/, 'without a summary from the model, the caller\'s words');
  twilio.setCallStatus(leg.sid, 'no-answer');

  await until(() => chat.length >= 2, 15_000, 'the model asked again');
  const toolMsg = chat[1].messages.find((m) => m.role === 'tool')!;
  t.match(JSON.parse(toolMsg.content!).result, /Sales did not answer \(nobody answered\)/);
  const toldAt = Date.now();
  await phone.waitFor((s) => s.messages('media').filter((m) => m.atMs > toldAt).length > 50, 15_000, 'the caller hears the answer');
  t.equal(call.updates.length, 0, 'the caller was never moved');
  const live = await sessionRow(h, sessionId);
  t.match(live, { status: 'active', transferred_at: null, transfer: null });

  await phone.hangUp();
  await media.idle();
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'caller_hangup' });
  const [n] = await h.ctx.sql`select count(*)::int as n from webhook_events where project_id = ${l.tenant.projectId} and type = 'call.transferred'`;
  t.equal(n.n, 0);
});

t.test('warm transfer still ringing at the ring time: the leg is cancelled and the call goes on', async (t) => {
  const chat = scriptChat([toolCall('transfer_call', { destination: 'Sales', mode: 'warm' }, 'Trying sales.'), text('Nobody is free, sorry.')]);
  providers.script.transcripts = ['sales please'];
  const l = await line({ transfer_timeout_seconds: 5 });
  const { sessionId, call, phone } = await answeredCall(l);
  phone.say(speech('Sales please.', 8000), 'ask');
  await until(() => twilio.calls.some((c) => c.form.To?.[0] === SALES.e164 && c.accountSid === l.account.sid), 30_000, 'the person called');
  const leg = twilio.calls.find((c) => c.form.To?.[0] === SALES.e164 && c.accountSid === l.account.sid)!;
  twilio.setCallStatus(leg.sid, 'ringing');
  await until(() => chat.length >= 2, 20_000, 'the model told');
  t.same(leg.updates.map((u) => u.Status?.[0]), ['canceled'], 'the ringing leg was cancelled');
  t.equal(leg.status, 'canceled');
  t.match(JSON.parse(chat[1].messages.find((m) => m.role === 'tool')!.content!).result, /did not answer/);
  t.equal(call.updates.length, 0);
  t.equal((await sessionRow(h, sessionId)).status, 'active');
  await phone.hangUp();
  await media.idle();
});

t.test('a carrier that refuses the update: the hand-over is taken back, the model is told, the call goes on', async (t) => {
  const chat = scriptChat([toolCall('transfer_call', { destination: 'Billing', mode: 'cold' }, 'Transferring.'), text('That did not work, sorry.')]);
  providers.script.transcripts = ['billing'];
  const billing = speech('Billing.', 8000); // before the call: espeak-ng runs synchronously in this process
  const l = await line();
  const { sessionId, call, phone } = await answeredCall(l);
  twilio.setCallStatus(call.sid, 'completed'); // Twilio: 21220, not in progress
  phone.say(billing, 'ask');
  await until(() => chat.length >= 2, 20_000, 'the model told');
  t.match(JSON.parse(chat[1].messages.find((m) => m.role === 'tool')!.content!).error, /the transfer to Billing failed: Twilio answered HTTP 400 \(code 21220\)/);
  t.match(await sessionRow(h, sessionId), { status: 'active', transferred_at: null });
  await phone.hangUp();
  await media.idle();
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'caller_hangup' });
});

t.test('Telnyx, cold: the Call Control transfer command; completed / transferred', async (t) => {
  scriptChat([toolCall('transfer_call', { destination: 'Sales', mode: 'cold' }, 'Putting you through to sales.')]);
  providers.script.transcripts = ['sales please'];
  const tenant = await createTenant(h);
  await walletCredit(h.ctx, tenant.projectId, 1000n * RATE);
  const pipeline = await openAiPipeline(h, tenant.projectId, providers.baseUrl);
  const agent = await createAgent(h.ctx, tenant.projectId, AgentCreateBody.parse({ name: 'tx', prompt: 'p', pipeline_mode: 'cascade', pipeline_config: pipeline, language: 'en-US', backchannel: false, transfer_destinations: [SALES] }));
  const account = telnyx.addAccount();
  const carrier = await createCarrierConnection(h.ctx, tenant.projectId, { kind: 'telnyx', label: 'tx', credentials: { api_key: account.apiKey, public_key: account.publicKey }, base_url: telnyx.baseUrl });
  await verifyCarrier(h.ctx, tenant.projectId, carrier.id);
  const from = `+1415556${String(seq++).padStart(4, '0')}`;
  telnyx.addNumber(account.apiKey, from, null);
  await createCarrierNumber(h.ctx, tenant.projectId, carrier.id, { e164: from, outboundEnabled: true, agentId: null });
  const admitted = await admitOutbound(h.ctx, tenant.projectId, { agent_id: agent.agent.id, from, to: '+14155557777', variables: {} });
  const sessionId = admitted.session.id;
  const outcome = await processDial(h.ctx, sessionId);
  if (outcome.kind !== 'dialed') throw new Error(`dial ${JSON.stringify(outcome)}`);
  const call = telnyx.calls.find((c) => c.callControlId === outcome.callSid)!;
  await sendCallEvent(telnyx, call, 'call.initiated');
  await sendCallEvent(telnyx, call, 'call.answered');
  const phone = await FakeTelnyxStream.connect(String(call.params.stream_url), { callControlId: call.callControlId, clientState: call.clientState, from: call.from, to: call.to });
  phone.begin();
  phone.startLine();
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'stream connected');
  phone.say(speech('Sales please.', 8000));
  await phone.waitForClose(30_000);
  await media.idle();
  const transfers = call.actions.filter((a) => a.action === 'transfer');
  t.same(transfers.map((a) => a.body), [{ to: SALES.e164, timeout_secs: 30, from }], 'transfer to the person, shown our number');
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'transferred', transfer: { destination: 'Sales', e164: SALES.e164, mode: 'cold' } });
  const [ev] = await h.ctx.sql`select count(*)::int as n from webhook_events where project_id = ${tenant.projectId} and type = 'call.transferred'`;
  t.equal(ev.n, 1);
});

t.test('web sessions have no transfer_call, even when the agent lists people', async (t) => {
  const chat = scriptChat([text('Hello there.')]);
  providers.script.transcripts = ['hello'];
  const l = await line();
  const { caller } = await webCall(h, media, { projectId: l.tenant.projectId, agentId: l.agentId, webhookSecret: '' }, { variables: {} });
  caller.silence(300);
  caller.say(speech('Hello.'));
  await caller.waitFor((f) => f.type === 'transcript' && f.role === 'assistant', 15_000);
  t.ok(chat.length >= 1);
  t.notOk(toolNames(chat[0]).includes('transfer_call'));
  t.ok(toolNames(chat[0]).includes('end_call'), 'the other built-ins are there');
  caller.hangUp();
  await caller.closed;
});

t.test('transfer_destinations and transfer_timeout_seconds: validated with loc, versioned', async (t) => {
  const tenant = await createTenant(h);
  const pipeline = await openAiPipeline(h, tenant.projectId, providers.baseUrl);
  const base = { name: 'v', prompt: 'p', pipeline_mode: 'cascade', pipeline_config: pipeline };
  const post = (extra: object) => h.app.inject({ method: 'POST', url: '/v2/agents', headers: tenant.machine, payload: { ...base, ...extra } });
  const cases: [object, (string | number)[]][] = [
    [{ transfer_destinations: [{ name: 'A', e164: '4155550100' }] }, ['body', 'transfer_destinations', 0, 'e164']],
    [{ transfer_destinations: [{ name: '', e164: '+14155550100' }] }, ['body', 'transfer_destinations', 0, 'name']],
    [{ transfer_destinations: [{ name: 'A', e164: '+14155550100', phone: 'x' }] }, ['body', 'transfer_destinations', 0, 'phone']],
    [{ transfer_destinations: [BILLING, { ...SALES, name: 'Billing' }] }, ['body', 'transfer_destinations', 1, 'name']],
    [{ transfer_destinations: Array.from({ length: 21 }, (_, i) => ({ name: `p${i}`, e164: `+1415555${String(i).padStart(4, '0')}` })) }, ['body', 'transfer_destinations']],
    [{ transfer_destinations: { name: 'A' } }, ['body', 'transfer_destinations']],
    [{ transfer_timeout_seconds: 4 }, ['body', 'transfer_timeout_seconds']],
    [{ tools: [{ type: 'function', name: 'transfer_call' }] }, ['body', 'tools', 0, 'name']],
  ];
  for (const [extra, loc] of cases) {
    const res = await post(extra);
    t.equal(res.statusCode, 422, JSON.stringify(extra).slice(0, 80));
    t.ok((res.json().detail as { loc: unknown[] }[]).some((d) => JSON.stringify(d.loc) === JSON.stringify(loc)), `loc ${JSON.stringify(loc)}: ${res.body.slice(0, 200)}`);
  }

  const created = await post({ transfer_destinations: [{ name: 'Billing', e164: BILLING.e164 }] });
  t.equal(created.statusCode, 201);
  const agent = created.json().agent;
  t.same(agent.transfer_destinations, [{ name: 'Billing', e164: BILLING.e164, description: '' }]);
  t.equal(agent.transfer_timeout_seconds, null);
  const url = `/v2/agents/${agent.id}`;
  const patched = await h.app.inject({ method: 'PATCH', url, headers: tenant.machine, payload: { transfer_destinations: [SALES], transfer_timeout_seconds: 20 } });
  t.match(patched.json(), { transfer_destinations: [SALES], transfer_timeout_seconds: 20, version: 2 });
  const kept = await h.app.inject({ method: 'PATCH', url, headers: tenant.machine, payload: { transfer_destinations: null, transfer_timeout_seconds: null } });
  t.match(kept.json(), { transfer_destinations: [SALES], transfer_timeout_seconds: null, version: 3 }, 'null keeps the list, clears the timeout');
  t.match((await h.app.inject({ method: 'GET', url: `${url}/versions/1`, headers: tenant.machine })).json(), { transfer_destinations: [{ name: 'Billing' }] });
  const bad = await h.app.inject({ method: 'PATCH', url, headers: tenant.machine, payload: { transfer_destinations: [{ name: 'X', e164: '+0123' }] } });
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['body', 'transfer_destinations', 0, 'e164']);

  const ep = await h.app.inject({ method: 'POST', url: `/v2/projects/${tenant.projectId}/webhooks`, headers: tenant.machine, payload: { name: 'tx', url: 'https://example.com/hook', event_types: ['call.transferred'] } });
  t.equal(ep.statusCode, 201, 'call.transferred is subscribable');
});
