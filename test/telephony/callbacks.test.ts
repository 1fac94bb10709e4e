import t from 'tap';
import { postSigned, sendRecordingCallback, sendStatusCallback, twilioSign, type CallStatus } from '../fakes/twilio/callbacks.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { dialed, phoneTenant, sessionRow, startBed } from './helpers.js';

// Twilio's status and recording callbacks, sent by the fake carrier as real signed HTTP requests
// to the API: X-Twilio-Signature is required and checked against the carrier's auth token over
// the public URL; the session moves as the call progresses, in whatever order Twilio reports.

const bed = await startBed();
const { h, fake } = bed;
t.teardown(bed.close);
h.ctx.config.PUBLIC_MEDIA_URL = 'wss://media.example.com';

const ledger = async (id: string) =>
  (await h.ctx.sql`select kind from wallet_ledger where session_id = ${id} order by kind`).map((r) => r.kind as string);
const events = async (projectId: string, id: string) =>
  (await h.ctx.sql`select type from webhook_events where project_id = ${projectId} and data->'session'->>'id' = ${id}`).map((r) => r.type as string);

t.test('signature: missing, wrong, another token, tampered, another URL, unknown carrier → 403 with the error shape, nothing changes', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  const url = call.form.StatusCallback[0];
  const form = new URLSearchParams({ AccountSid: p.account.sid, CallSid: call.sid, CallStatus: 'busy', From: p.from, To: call.form.To[0] });
  const post = (u: string, f: URLSearchParams, headers: Record<string, string>) =>
    fetch(u, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: f.toString() });

  const missing = await post(url, form, {});
  t.equal(missing.status, 403);
  t.same(await missing.json(), { detail: 'missing X-Twilio-Signature' });

  const cases: [string, Promise<{ status: number; body: string }>][] = [
    ['garbage', postSigned(url, form, p.account.token, { signature: 'bm90IGEgc2lnbmF0dXJl' })],
    ['another token', postSigned(url, form, 'f'.repeat(32))],
    ['tampered parameter', post(url, form, { 'x-twilio-signature': twilioSign(p.account.token, url, new URLSearchParams({ ...Object.fromEntries(form), CallStatus: 'ringing' })) }).then(async (r) => ({ status: r.status, body: await r.text() }))],
    ['another session in the query', post(url.replace(sessionId, '00000000-0000-4000-8000-000000000000'), form, { 'x-twilio-signature': twilioSign(p.account.token, url, form) }).then(async (r) => ({ status: r.status, body: await r.text() }))],
    ['signed for another host', post(url, form, { 'x-twilio-signature': twilioSign(p.account.token, url.replace('127.0.0.1', 'localhost'), form) }).then(async (r) => ({ status: r.status, body: await r.text() }))],
    ['unknown carrier', (() => {
      const other = url.replace(p.carrierId, '00000000-0000-4000-8000-000000000000');
      return postSigned(other, form, p.account.token);
    })()],
    ['malformed carrier id', postSigned(url.replace(p.carrierId, 'not-a-uuid'), form, p.account.token)],
  ];
  for (const [what, pending] of cases) {
    const res = await pending;
    t.equal(res.status, 403, what);
    t.same(JSON.parse(res.body), { detail: 'invalid X-Twilio-Signature' }, what);
  }
  // A JSON body carries no form parameters: signed over the bare URL it is authentic but says nothing.
  const json = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-twilio-signature': twilioSign(p.account.token, url, new URLSearchParams()) }, body: JSON.stringify({ CallStatus: 'busy' }) });
  t.equal(json.status, 204, 'a JSON body is not read as a callback');
  const jsonForged = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-twilio-signature': twilioSign(p.account.token, url, form) }, body: JSON.stringify(Object.fromEntries(form)) });
  t.equal(jsonForged.status, 403, 'a form signature does not carry over to a JSON body');
  t.match(await sessionRow(h, sessionId), { status: 'created', settled_at: null, carrier_status: null });

  // The operator's PUBLIC_BASE_URL is what Twilio signs: a mismatch fails every callback.
  const saved = h.ctx.config.PUBLIC_BASE_URL;
  h.ctx.config.PUBLIC_BASE_URL = 'https://api.example.com';
  t.equal((await sendStatusCallback(fake, call.sid, 'ringing')).status, 403);
  h.ctx.config.PUBLIC_BASE_URL = saved;
  t.equal((await sendStatusCallback(fake, call.sid, 'ringing')).status, 204, 'correctly signed');
});

t.test('ringing → active (no media yet); answered keeps it active; completed with no stream → failed / not_connected, settled once', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  t.equal((await sendStatusCallback(fake, call.sid, 'initiated')).status, 204);
  t.match(await sessionRow(h, sessionId), { status: 'created', carrier_status: 'initiated' });
  await sendStatusCallback(fake, call.sid, 'ringing');
  let row = await sessionRow(h, sessionId);
  t.match(row, { status: 'active', carrier_status: 'ringing', media_connected_at: null });
  t.ok(row.started_at);
  t.ok(row.lease_expires_at > row.token_expires_at, 'the telephony sweeper, not the node-lease sweeper, owns a ringing call');
  const info = (await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${sessionId}`, headers: p.tenant.machine })).json();
  t.equal(info.status, 'active');
  await sendStatusCallback(fake, call.sid, 'in-progress');
  t.match(await sessionRow(h, sessionId), { status: 'active', carrier_status: 'in-progress' });

  await sendStatusCallback(fake, call.sid, 'completed', { durationSeconds: 4 });
  row = await sessionRow(h, sessionId);
  t.match(row, { status: 'failed', end_reason: 'not_connected', connected_seconds: 0, cost_nano_usd: 0n, token_hash: null });
  t.ok(row.settled_at);
  // Twilio retries: the same callback again changes nothing and settles nothing twice.
  await sendStatusCallback(fake, call.sid, 'completed', { durationSeconds: 4 });
  await sendStatusCallback(fake, call.sid, 'in-progress');
  t.match(await sessionRow(h, sessionId), { status: 'failed', end_reason: 'not_connected', carrier_status: 'completed' });
  t.same(await ledger(sessionId), ['charge', 'hold', 'release'], 'held, released and charged (0) exactly once');
  t.same(await events(p.tenant.projectId, sessionId), ['call.failed']);
});

t.test('busy, no-answer, failed, canceled → failed with busy, no_answer, carrier_error, carrier_error', async (t) => {
  const p = await phoneTenant(bed);
  const expected: [CallStatus, string][] = [['busy', 'busy'], ['no-answer', 'no_answer'], ['failed', 'carrier_error'], ['canceled', 'carrier_error']];
  for (const [status, reason] of expected) {
    const { sessionId, call } = await dialed(bed, p);
    if (status !== 'failed') await sendStatusCallback(fake, call.sid, 'ringing');
    const res = await sendStatusCallback(fake, call.sid, status);
    t.equal(res.status, 204);
    t.match(await sessionRow(h, sessionId), { status: 'failed', end_reason: reason, connected_seconds: 0, cost_nano_usd: 0n }, status);
  }
  const [{ held }] = await h.ctx.sql`select held_nano_usd as held from wallets where project_id = ${p.tenant.projectId}`;
  t.equal(held, 0n, 'every hold released');
  t.equal(await h.ctx.redis.zcard(`${h.ctx.redisPrefix}{slots}:slots:${p.tenant.projectId}`), 0, 'every slot freed');
});

t.test('out of order: completed before ringing and answered; the late ones change nothing', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  await sendStatusCallback(fake, call.sid, 'no-answer');
  await sendStatusCallback(fake, call.sid, 'ringing');
  await sendStatusCallback(fake, call.sid, 'initiated');
  const row = await sessionRow(h, sessionId);
  t.match(row, { status: 'failed', end_reason: 'no_answer', carrier_status: 'no-answer' }, 'the stored carrier status never goes back');
  t.same(await ledger(sessionId), ['charge', 'hold', 'release'], 'held, released and charged (0) exactly once');
});

t.test('a callback before the dial job recorded the CallSid finds the session by session_id and names the call', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  await h.ctx.sql`update voice_sessions set carrier_call_sid = null where id = ${sessionId}`;
  await sendStatusCallback(fake, call.sid, 'ringing');
  t.match(await sessionRow(h, sessionId), { carrier_call_sid: call.sid, status: 'active' });
  // Another call's callback aimed at this session is ignored.
  const other = await dialed(bed, p);
  const url = call.form.StatusCallback[0];
  const form = new URLSearchParams({ AccountSid: p.account.sid, CallSid: other.call.sid, CallStatus: 'busy' });
  const res = await postSigned(url, form, p.account.token);
  t.equal(res.status, 204);
  t.equal((await sessionRow(h, sessionId)).status, 'active', 'not ended by another call');
});

t.test('a callback with no session_id (a number\'s own status callback) finds the call by CallSid', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  const url = `${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/status`;
  const res = await postSigned(url, new URLSearchParams({ AccountSid: p.account.sid, CallSid: call.sid, CallStatus: 'busy' }), p.account.token);
  t.equal(res.status, 204);
  t.match(await sessionRow(h, sessionId), { status: 'failed', end_reason: 'busy' });
  const unknown = await postSigned(url, new URLSearchParams({ AccountSid: p.account.sid, CallSid: `CA${'0'.repeat(32)}`, CallStatus: 'busy' }), p.account.token);
  t.equal(unknown.status, 204, 'a signed callback for a call we do not know is acknowledged and ignored');
});

t.test("a carrier's callbacks cannot touch another carrier's session", async (t) => {
  const a = await phoneTenant(bed);
  const b = await phoneTenant(bed);
  const { sessionId } = await dialed(bed, a);
  const url = `${bed.baseUrl}/v2/carriers/twilio/${b.carrierId}/status?session_id=${sessionId}`;
  const res = await postSigned(url, new URLSearchParams({ AccountSid: b.account.sid, CallSid: `CA${'1'.repeat(32)}`, CallStatus: 'busy' }), b.account.token);
  t.equal(res.status, 204);
  t.match(await sessionRow(h, sessionId), { status: 'created', settled_at: null });
});

t.test('recording callback: completed names the recording; retries and a late absent keep it; record=false sessions ignore it', async (t) => {
  const p = await phoneTenant(bed, { record: true });
  const { sessionId, call } = await dialed(bed, p);
  await sendStatusCallback(fake, call.sid, 'ringing');
  await sendStatusCallback(fake, call.sid, 'completed');
  const rec = await sendRecordingCallback(fake, call.sid, { durationSeconds: 12 });
  t.equal(rec.status, 204);
  const ref = { provider: 'twilio', reference_id: rec.recordingSid, url: `${fake.baseUrl}/2010-04-01/Accounts/${p.account.sid}/Recordings/${rec.recordingSid}`, fetched_from: 'carrier' };
  const info = (await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${sessionId}`, headers: p.tenant.machine })).json();
  t.same(info.recording_ref, ref, 'after settlement too');
  await sendRecordingCallback(fake, call.sid, { recordingSid: rec.recordingSid });
  await sendRecordingCallback(fake, call.sid, { status: 'absent' });
  t.same((await sessionRow(h, sessionId)).recording_ref, ref);

  const bad = await sendRecordingCallback(fake, call.sid, { signature: 'AAAA' });
  t.equal(bad.status, 403);

  const none = await dialed(bed, p);
  const absent = await sendRecordingCallback(fake, none.call.sid, { status: 'absent' });
  t.equal(absent.status, 204);
  t.equal((await sessionRow(h, none.sessionId)).recording_ref, null, 'absent: there is no recording');

  const q = await phoneTenant(bed, { record: false });
  const off = await dialed(bed, q);
  // Twilio would not send it (no RecordingStatusCallback), but a signed one is still ignored.
  const url = `${bed.baseUrl}/v2/carriers/twilio/${q.carrierId}/recording?session_id=${off.sessionId}`;
  const form = new URLSearchParams({ AccountSid: q.account.sid, CallSid: off.call.sid, RecordingSid: `RE${'a'.repeat(32)}`, RecordingUrl: 'https://api.twilio.com/x', RecordingStatus: 'completed' });
  t.equal((await postSigned(url, form, q.account.token)).status, 204);
  t.equal((await sessionRow(h, off.sessionId)).recording_ref, null);
});

t.test('wallet: a call that never connected costs nothing', async (t) => {
  const p = await phoneTenant(bed, { wallet: 10n * MINUTE_NANO });
  const { sessionId, call } = await dialed(bed, p);
  await sendStatusCallback(fake, call.sid, 'ringing');
  await sendStatusCallback(fake, call.sid, 'completed');
  const [w] = await h.ctx.sql`select balance_nano_usd, held_nano_usd from wallets where project_id = ${p.tenant.projectId}`;
  t.equal(w.balance_nano_usd, 10n * MINUTE_NANO);
  t.equal(w.held_nano_usd, 0n);
  t.equal((await sessionRow(h, sessionId)).cost_nano_usd, 0n);
});
