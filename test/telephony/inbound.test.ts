import t from 'tap';
import { REFUSALS } from '../../src/carriers/twilio/twiml.js';
import { sendIncomingCall } from '../fakes/twilio/callbacks.js';
import { FakeMediaStream } from '../fakes/twilio/media-client.js';
import { tone } from '../fakes/twilio/mulaw.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { nextNumber, phoneTenant, sessionRow, startBed, streamOf, until, type PhoneTenant } from './helpers.js';

// The voice webhook of a customer's Twilio number: TwiML that connects the call to the number's
// agent, or a polite spoken refusal and a hang-up — always 200 text/xml, never a crash.

const bed = await startBed({ media: true });
const { h } = bed;
const media = bed.media!;
t.teardown(bed.close);

const voiceUrl = (p: PhoneTenant) => `${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/voice`;
const ring = (p: PhoneTenant, opts: { to?: string; callSid?: string; signature?: string } = {}) =>
  sendIncomingCall(p.account, voiceUrl(p), { from: '+12025550123', to: opts.to ?? p.from, callSid: opts.callSid, signature: opts.signature });
const refusal = (sentence: string) => `<?xml version="1.0" encoding="UTF-8"?><Response><Say>${sentence}</Say><Hangup/></Response>`;

t.test('a call to a number bound to an active agent is admitted (inbound) and connected to the media socket', async (t) => {
  const p = await phoneTenant(bed, { inboundAgent: true });
  const res = await ring(p);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/xml/);
  const { url, parameters } = streamOf(res.body);
  t.equal(url, `ws://127.0.0.1:${media.port}/v2/carriers/twilio/stream`);
  t.match(res.body, /^<\?xml version="1.0" encoding="UTF-8"\?><Response><Connect><Stream url="[^"]+"><Parameter name="session_id" value="[^"]+"\/><Parameter name="token" value="[^"]+"\/><\/Stream><\/Connect><\/Response>$/);
  const row = await sessionRow(h, parameters.session_id);
  t.match(row, { direction: 'inbound', status: 'created', agent_id: p.agentId, project_id: p.tenant.projectId, carrier_id: p.carrierId, from_e164: '+12025550123', to_e164: p.from, carrier_call_sid: res.callSid, sample_rate_in: 8000, sample_rate_out: 8000 });
  t.equal(row.hold_nano_usd, 2n * MINUTE_NANO);

  const stream = await FakeMediaStream.connect(url, { accountSid: p.account.sid, callSid: res.callSid, customParameters: parameters });
  stream.begin();
  await until(async () => (await sessionRow(h, parameters.session_id)).status === 'active', 5000, 'active');
  await stream.playPcm(tone(440, 600), { realtime: true });
  await stream.waitFor((s) => s.messages('media').length >= 20, 3000, 'echo');
  await stream.hangUp();
  await media.idle();
  t.match(await sessionRow(h, parameters.session_id), { status: 'completed', end_reason: 'caller_hangup', direction: 'inbound' });
});

t.test('Twilio asking again about the same call gets the same session with a fresh token', async (t) => {
  const p = await phoneTenant(bed, { inboundAgent: true });
  const first = await ring(p);
  const again = await ring(p, { callSid: first.callSid });
  const a = streamOf(first.body).parameters;
  const b = streamOf(again.body).parameters;
  t.equal(b.session_id, a.session_id);
  t.not(b.token, a.token);
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${p.tenant.projectId}`;
  t.equal(n, 1);
  // The first token no longer works; the fresh one does.
  const old = await FakeMediaStream.connect(streamOf(first.body).url, { accountSid: p.account.sid, callSid: first.callSid, customParameters: a });
  old.begin();
  await old.waitForClose();
  t.equal(old.closeCode, 4401);
  const fresh = await FakeMediaStream.connect(streamOf(first.body).url, { accountSid: p.account.sid, callSid: first.callSid, customParameters: b });
  fresh.begin();
  await until(async () => (await sessionRow(h, b.session_id)).status === 'active');
  const third = await ring(p, { callSid: first.callSid });
  t.equal(third.body, refusal(REFUSALS.unavailable), 'once connected, a repeat is refused');
  await fresh.hangUp();
});

t.test('polite refusals: spoken TwiML and a hang-up, 200 text/xml', async (t) => {
  const cases: [string, () => Promise<{ status: number; body: string; headers: Headers }>, string][] = [];

  const unbound = await phoneTenant(bed);
  cases.push(['number with no agent', () => ring(unbound), REFUSALS.unavailable]);
  cases.push(['number not on the carrier', () => ring(unbound, { to: nextNumber() }), REFUSALS.unavailable]);

  const inactive = await phoneTenant(bed, { inboundAgent: true, agentActive: false });
  cases.push(['inactive agent', () => ring(inactive), REFUSALS.unavailable]);

  const poor = await phoneTenant(bed, { inboundAgent: true, wallet: 1n });
  cases.push(['wallet cannot cover the call', () => ring(poor), REFUSALS.unavailable]);

  const full = await phoneTenant(bed, { inboundAgent: true, maxConcurrent: 1 });
  await ring(full); // takes the only slot
  cases.push(['no free line', () => ring(full), REFUSALS.busy]);

  const noProviders = await phoneTenant(bed, { inboundAgent: true });
  await h.ctx.sql`update provider_accounts set status = 'invalid' where project_id = ${noProviders.tenant.projectId}`;
  cases.push(['providers unverified', () => ring(noProviders), REFUSALS.unavailable]);

  const required = await phoneTenant(bed, { inboundAgent: true });
  await h.ctx.sql`update agents set variables = ${h.ctx.sql.json([{ name: 'customer', required: true }])} where id = ${required.agentId}`;
  cases.push(['agent needs variables an inbound call cannot give', () => ring(required), REFUSALS.unavailable]);

  for (const [what, send, sentence] of cases) {
    const res = await send();
    t.equal(res.status, 200, what);
    t.match(res.headers.get('content-type'), /^text\/xml/, what);
    t.equal(res.body, refusal(sentence), what);
  }
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${inactive.tenant.projectId} or project_id = ${poor.tenant.projectId}`;
  t.equal(n, 0, 'refused calls leave no session');
  const [w] = await h.ctx.sql`select held_nano_usd from wallets where project_id = ${poor.tenant.projectId}`;
  t.equal(w.held_nano_usd, 0n);
});

t.test('the voice webhook checks X-Twilio-Signature: 403 with the error shape', async (t) => {
  const p = await phoneTenant(bed, { inboundAgent: true });
  const forged = await ring(p, { signature: 'Zm9yZ2Vk' });
  t.equal(forged.status, 403);
  t.same(JSON.parse(forged.body), { detail: 'invalid X-Twilio-Signature' });
  const other = await phoneTenant(bed, { inboundAgent: true });
  // Signed with the other account's token, aimed at p's carrier.
  const cross = await sendIncomingCall(other.account, voiceUrl(p), { from: '+12025550123', to: p.from });
  t.equal(cross.status, 403);
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${p.tenant.projectId}`;
  t.equal(n, 0);
  const malformed = await fetch(voiceUrl(p), { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': 'x' }, body: '%%%&&&=' });
  t.equal(malformed.status, 403);
});

t.test('an inbound call whose stream never comes expires as not_connected', async (t) => {
  const p = await phoneTenant(bed, { inboundAgent: true });
  const res = await ring(p);
  const id = streamOf(res.body).parameters.session_id;
  await h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where id = ${id}`;
  const { sweepOnce } = await import('../../src/sessions/sweepers.js');
  await sweepOnce(h.ctx);
  t.match(await sessionRow(h, id), { status: 'failed', end_reason: 'not_connected', cost_nano_usd: 0n });
});
