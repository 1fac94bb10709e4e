import t from 'tap';
import { createCarrierConnection, verifyCarrier } from '../../src/carriers/accounts.js';
import { createCarrierNumber } from '../../src/db/repos/carrier-numbers.js';
import { getTranscript } from '../../src/db/repos/session-transcripts.js';
import { MACHINE_DETECTION_CHANNEL } from '../../src/db/repos/machine-detection.js';
import { processDial } from '../../src/telephony/dial.js';
import { admitOutbound } from '../../src/telephony/outbound.js';
import { sendAmdCallback, type AnsweredBy } from '../fakes/twilio/callbacks.js';
import type { FakeMediaStream } from '../fakes/twilio/media-client.js';
import type { PlacedCall } from '../fakes/twilio/rest.js';
import { startProviderFakes } from '../fakes/wire/providers.js';
import { call as webCall, openAiPipeline, setupAgent, speech } from '../conversation/fixtures.js';
import { createTenant } from '../helpers/fixtures.js';
import { startFakeTelnyx } from '../fakes/telnyx/rest.js';
import { sendCallEvent } from '../fakes/telnyx/webhooks.js';
import { watchMachineDetection } from '../../src/telephony/amd.js';
import { answeredOutbound } from './answered-outbound.js';
import { sessionRow, startBed, until } from './helpers.js';

// Voicemail (issue 20 item 3, contract §11) through the real service: the outbound call is placed
// with Twilio's asynchronous answering-machine detection when the agent has a `voicemail`
// setting, the fake Twilio posts the signed verdict, and the media node running the call acts on
// it: a person is simply talked to; a machine is hung up on, or left the message right after its
// beep (found by the native beep detector in the callee's audio); web sessions ignore it.

const GREETING = 'Hello {{name}}, this is the city clinic calling about your appointment tomorrow morning. We would like to confirm the time with you.';
const MESSAGE = 'Hi {{name}}, this is the city clinic. Please call us back about your appointment.';
const RATE = 8000;
const providers = await startProviderFakes();
// The no-beep fallback is shortened from 10 s (the machine's greeting in these tests is about 4 s).
const NO_BEEP_MS = 7000;
const bed = await startBed({ media: { pipeline: 'agent', conversation: { voicemail: { noBeepFallbackMs: NO_BEEP_MS } } } });
const { h, fake } = bed;
t.teardown(async () => {
  await bed.close();
  await providers.close();
});

/** A 1 kHz answering-machine beep at 8 kHz. */
function beep(ms: number, amplitude = 0.3): Int16Array {
  const n = Math.round((RATE * ms) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 1000 * i) / RATE));
  return out;
}

interface PhoneCall {
  phone: FakeMediaStream;
  sessionId: string;
  call: PlacedCall;
}

/** An answered outbound call from an agent with `fields` (voicemail, ...), its stream on the fake line. */
async function outboundCall(fields: Record<string, unknown>): Promise<PhoneCall> {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, providers.baseUrl), { greeting: GREETING, store_transcript: true, ...fields });
  const { phone, sessionId, call } = await answeredOutbound(bed, setup);
  await phone.waitFor((s) => s.messages('media').length > 0, 10_000, 'the greeting');
  return { phone, sessionId, call };
}

async function verdict(c: PhoneCall, answeredBy: AnsweredBy): Promise<void> {
  const answer = await sendAmdCallback(fake, c.call.sid, answeredBy);
  if (answer.status !== 204) throw new Error(`amd callback ${answer.status}: ${answer.body}`);
}

async function settled(sessionId: string) {
  await until(async () => (await sessionRow(h, sessionId)).settled_at !== null, 10_000, 'settled');
  return sessionRow(h, sessionId);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('the call is placed with asynchronous AMD only when the agent has a voicemail setting', async (t) => {
  const plain = await outboundCall({});
  t.notOk(plain.call.form.MachineDetection, 'no voicemail setting: no detection');
  await plain.phone.hangUp();

  const c = await outboundCall({ voicemail: { action: 'hangup' } });
  t.same(c.call.form.MachineDetection, ['Enable']);
  t.same(c.call.form.AsyncAmd, ['true']);
  t.same(c.call.form.AsyncAmdStatusCallbackMethod, ['POST']);
  t.equal(c.call.form.AsyncAmdStatusCallback[0], `${bed.baseUrl}/v2/carriers/twilio/${(await sessionRow(h, c.sessionId)).carrier_id}/amd?session_id=${c.sessionId}`);
  // A forged verdict is refused and changes nothing.
  const forged = await sendAmdCallback(fake, c.call.sid, 'machine_start', { signature: 'AAAA' });
  t.equal(forged.status, 403);
  t.same(JSON.parse(forged.body), { detail: 'invalid X-Twilio-Signature' });
  t.equal((await sessionRow(h, c.sessionId)).answered_by, null);
  await c.phone.hangUp();
  t.equal((await settled(c.sessionId)).end_reason, 'caller_hangup');
});

t.test('a person answered: the conversation goes on as usual', async (t) => {
  providers.script.transcripts = ['yes this is ann'];
  providers.script.replies = ['Great, thank you Ann.'];
  const c = await outboundCall({ voicemail: { action: 'leave_message', message: MESSAGE } });
  await verdict(c, 'human');
  // The greeting plays to its end, and the callee's words are answered.
  await c.phone.waitFor((s) => s.marks().length > 0, 20_000, 'the greeting played');
  t.equal(c.phone.clears(), 0, 'nothing was cut');
  c.phone.say(speech('Yes, this is Ann.', RATE));
  await c.phone.waitFor((s) => s.marks().length > 1, 20_000, 'the answer');
  await c.phone.hangUp();
  const row = await settled(c.sessionId);
  t.equal(row.answered_by, 'human');
  t.same([row.status, row.end_reason], ['completed', 'caller_hangup']);
  const entries = await getTranscript(h.ctx.sql, c.sessionId);
  t.same(entries.slice(1).map((e) => e.text), ['yes this is ann', 'Great, thank you Ann.']);
});

t.test('a machine with voicemail hangup: the greeting is cut and the call ends voicemail', async (t) => {
  const c = await outboundCall({ voicemail: { action: 'hangup' } });
  await sleep(500);
  await verdict(c, 'machine_start');
  await c.phone.waitFor((s) => s.clears() > 0, 5000, 'clear');
  const row = await settled(c.sessionId);
  t.same([row.status, row.end_reason, row.answered_by], ['completed', 'voicemail', 'machine_start']);
  t.ok(row.connected_seconds >= 1, 'billed for the time it was connected');
  // A retried verdict changes nothing once the call is over.
  t.equal((await sendAmdCallback(fake, c.call.sid, 'human')).status, 204);
  t.equal((await sessionRow(h, c.sessionId)).answered_by, 'machine_start');
});

t.test('a fax is hung up on, even with leave_message', async (t) => {
  const c = await outboundCall({ voicemail: { action: 'leave_message', message: MESSAGE } });
  await verdict(c, 'fax');
  const row = await settled(c.sessionId);
  t.same([row.status, row.end_reason], ['completed', 'voicemail']);
});

t.test('a machine with leave_message: the message starts right after the beep, then the call ends voicemail', async (t) => {
  providers.script.transcripts = ['hi you have reached ann please leave a message after the tone'];
  providers.script.replies = ['This answer must never be spoken.'];
  const chats = providers.requests.filter((r) => r.path === '/v1/chat/completions').length;
  const c = await outboundCall({ voicemail: { action: 'leave_message', message: MESSAGE } });
  // Twilio says "machine" a second into the call; the machine's greeting goes on, then beeps.
  await sleep(1000);
  await verdict(c, 'machine_start');
  await c.phone.waitFor((s) => s.clears() > 0, 5000, 'the greeting cut');
  const clearedAt = c.phone.messages('clear')[0].atMs;
  c.phone.say(speech('Hi, you have reached Ann. Please leave a message after the tone.', RATE));
  const BEEP_MS = 500;
  c.phone.say(beep(BEEP_MS), 'beep');
  await until(() => c.phone.saidAt.has('beep'), 15_000, 'the beep on the line');
  const beepEnd = c.phone.saidAt.get('beep')! + BEEP_MS;

  await c.phone.waitFor((s) => s.messages('media').some((m) => m.atMs > beepEnd), 10_000, 'the message');
  const media = c.phone.messages('media');
  const silentBetween = media.filter((m) => m.atMs > clearedAt + 200 && m.atMs < beepEnd);
  t.equal(silentBetween.length, 0, 'nothing is said to the machine between the verdict and the beep');
  const startsAfter = media.find((m) => m.atMs > beepEnd)!.atMs - beepEnd;
  t.ok(startsAfter <= 300, `the message starts ${startsAfter} ms after the beep ends`);
  t.comment(`message start after beep end: ${startsAfter} ms`);

  const row = await settled(c.sessionId);
  t.same([row.status, row.end_reason, row.answered_by], ['completed', 'voicemail', 'machine_start']);
  const message = MESSAGE.replace('{{name}}', 'Ann');
  const spokenMs = c.phone.messages('media').filter((m) => m.atMs > beepEnd).length * 20;
  t.ok(spokenMs >= 1000, `the whole message was sent (${spokenMs} ms of audio)`);
  const entries = await getTranscript(h.ctx.sql, c.sessionId);
  t.equal(entries.at(-1)?.text, message, 'the message, its variable filled in, ends the transcript');
  t.equal(entries.find((e) => e.role === 'user')?.text, 'hi you have reached ann please leave a message after the tone', "the machine's greeting is in the transcript");
  t.notOk(entries.some((e) => e.text === 'This answer must never be spoken.'), 'the machine was not answered');
  t.equal(providers.requests.filter((r) => r.path === '/v1/chat/completions').length, chats, 'the model was never asked');
});

/** When the first agent audio after the `clear` that cut the greeting reached the phone. */
async function messageStarts(c: PhoneCall, timeoutMs: number): Promise<number> {
  const after = (s: FakeMediaStream) => s.messages('media').find((m) => s.clears() > 0 && m.atMs > s.messages('clear')[0].atMs + 200);
  await c.phone.waitFor((s) => after(s) !== undefined, timeoutMs, 'the message');
  return after(c.phone)!.atMs;
}

t.test('the carrier says the greeting ended (no beep heard): the message is left at once', async (t) => {
  const c = await outboundCall({ voicemail: { action: 'leave_message', message: MESSAGE } });
  const sent = Date.now();
  await verdict(c, 'machine_end_silence');
  const waited = (await messageStarts(c, 5000)) - sent;
  t.ok(waited < 1000, `the message started ${waited} ms after the verdict`);
  const row = await settled(c.sessionId);
  t.same([row.status, row.end_reason], ['completed', 'voicemail']);
});

t.test('a machine that never beeps: the message is left after the fallback time', async (t) => {
  const c = await outboundCall({ voicemail: { action: 'leave_message', message: MESSAGE } });
  const sent = Date.now();
  await verdict(c, 'machine_start');
  c.phone.say(speech('Please leave a message.', RATE));
  const waited = (await messageStarts(c, NO_BEEP_MS + 5000)) - sent;
  t.ok(waited >= NO_BEEP_MS - 100, `the message started ${waited} ms after the verdict, no sooner than the fallback`);
  const row = await settled(c.sessionId);
  t.same([row.status, row.end_reason], ['completed', 'voicemail']);
});

t.test('web sessions ignore voicemail', async (t) => {
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, providers.baseUrl), { greeting: 'Hello there, welcome to the clinic.', voicemail: { action: 'hangup' } });
  const { caller, sessionId } = await webCall(h, bed.media!, setup);
  await until(() => caller.audio.length > 0, 10_000, 'the greeting');
  // Even a stray verdict naming the session is not acted on.
  await h.ctx.sql`select pg_notify(${MACHINE_DETECTION_CHANNEL}, ${JSON.stringify({ session_id: sessionId, answered_by: 'machine_start' })})`;
  await caller.waitFor((f) => f.type === 'turn_complete', 15_000);
  await sleep(300);
  t.equal((await sessionRow(h, sessionId)).status, 'active', 'the call goes on');
  await caller.close();
  t.not((await settled(sessionId)).end_reason, 'voicemail');
});

t.test('voicemail settings are validated (422 with loc) and versioned', async (t) => {
  const tenant = await createTenant(h);
  const pipeline = await openAiPipeline(h, tenant.projectId, providers.baseUrl);
  const create = (voicemail: unknown) =>
    h.app.inject({
      method: 'POST',
      url: '/v2/agents',
      headers: tenant.machine,
      payload: { name: 'vm', prompt: 'p', pipeline_mode: 'cascade', pipeline_config: pipeline, voicemail },
    });
  const bad: [unknown, (string | number)[]][] = [
    [{ action: 'leave_message' }, ['body', 'voicemail', 'message']],
    [{ action: 'leave_message', message: 'x'.repeat(1001) }, ['body', 'voicemail', 'message']],
    [{ action: 'leave_message', message: '   ' }, ['body', 'voicemail', 'message']],
    [{ action: 'hangup', message: 'hello' }, ['body', 'voicemail', 'message']],
    [{ action: 'record' }, ['body', 'voicemail', 'action']],
    [{ action: 'hangup', extra: 1 }, ['body', 'voicemail', 'extra']],
    ['hangup', ['body', 'voicemail']],
  ];
  for (const [voicemail, loc] of bad) {
    const res = await create(voicemail);
    const label = JSON.stringify(voicemail).slice(0, 60);
    t.equal(res.statusCode, 422, label);
    const detail = (res.json() as { detail: { loc: unknown[] }[] }).detail;
    t.ok(detail.some((d) => JSON.stringify(d.loc) === JSON.stringify(loc)), `${label}: loc ${JSON.stringify(loc)}`);
  }
  const ok = await create({ action: 'leave_message', message: 'x'.repeat(1000) });
  t.equal(ok.statusCode, 201, '1,000 characters are accepted');
  const agent = (ok.json() as { agent: { id: string; voicemail: unknown; version: number } }).agent;
  t.same(agent.voicemail, { action: 'leave_message', message: 'x'.repeat(1000) });
  const none = await create(undefined);
  t.equal((none.json() as { agent: { voicemail: unknown } }).agent.voicemail, null, 'null by default');
  // Update: changed, then cleared with null; each a new version.
  const upd = (voicemail: unknown) => h.app.inject({ method: 'PATCH', url: `/v2/agents/${agent.id}`, headers: tenant.machine, payload: { voicemail } });
  const changed = await upd({ action: 'hangup' });
  t.equal(changed.statusCode, 200);
  t.same((changed.json() as { voicemail: unknown }).voicemail, { action: 'hangup' });
  const badUpdate = await upd({ action: 'leave_message' });
  t.equal(badUpdate.statusCode, 422);
  const cleared = await upd(null);
  t.equal((cleared.json() as { voicemail: unknown; version: number }).voicemail, null);
  t.ok((cleared.json() as { version: number }).version > agent.version);
});

t.test('the AMD callback route is documented', async (t) => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, { operationId?: string }>> };
  t.equal(doc.paths['/v2/carriers/twilio/{carrier_id}/amd']?.post?.operationId, 'twilioAmdCallback');
});

t.test('Telnyx: dialed with answering_machine_detection, its signed verdict reaches the call', async (t) => {
  const telnyx = await startFakeTelnyx();
  t.teardown(() => telnyx.close());
  const setup = await setupAgent(h, (pid) => openAiPipeline(h, pid, providers.baseUrl), { voicemail: { action: 'hangup' } });
  const account = telnyx.addAccount();
  const carrier = await createCarrierConnection(h.ctx, setup.projectId, { kind: 'telnyx', label: 'tx', credentials: { api_key: account.apiKey, public_key: account.publicKey }, base_url: telnyx.baseUrl });
  await verifyCarrier(h.ctx, setup.projectId, carrier.id);
  telnyx.addNumber(account.apiKey, '+14155550124', null);
  await createCarrierNumber(h.ctx, setup.projectId, carrier.id, { e164: '+14155550124', outboundEnabled: true, agentId: null });
  const admitted = await admitOutbound(h.ctx, setup.projectId, { agent_id: setup.agentId, from: '+14155550124', to: '+14155557777', variables: {} });
  const sessionId = admitted.session.id;
  const outcome = await processDial(h.ctx, sessionId);
  const call = telnyx.calls.find((c) => c.callControlId === (outcome as { callSid: string }).callSid)!;
  t.equal(call.params.answering_machine_detection, 'detect');
  t.equal((await sendCallEvent(telnyx, call, 'call.answered')).status, 200);

  // What the media node running the call is told (the same path as Twilio's verdicts).
  const heard = new Promise<string>((resolve) => watchMachineDetection(h.ctx, sessionId, resolve));
  t.equal((await sendCallEvent(telnyx, call, 'call.machine.detection.ended', { result: 'machine' }, { tamper: (raw) => raw.replace('machine', 'human') })).status, 403, 'a tampered event is refused');
  t.equal((await sendCallEvent(telnyx, call, 'call.machine.detection.ended', { result: 'machine' })).status, 200);
  t.equal(await heard, 'machine_start');
  t.equal((await sessionRow(h, sessionId)).answered_by, 'machine_start');
  // The greeting's end comes later; the first verdict stands.
  await sendCallEvent(telnyx, call, 'call.machine.greeting.ended', { result: 'beep_detected' });
  t.equal((await sessionRow(h, sessionId)).answered_by, 'machine_start');
});
