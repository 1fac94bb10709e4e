import t from 'tap';
import { sha256Hex } from '../../src/shared/crypto/tokens.js';
import { DialRetry, NOT_PLACED_RECORDING_DETAIL, processDial } from '../../src/telephony/dial.js';
import { dialQueue, kickDial } from '../../src/telephony/dial-queue.js';
import { startTelephonyWorkers } from '../../src/telephony/dial-worker.js';
import { sweepTelephonyOnce, UNCONFIRMED_DIAL_DETAIL } from '../../src/telephony/sweeper.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { phoneTenant, placeOutbound, sessionRow, startBed, streamOf, until } from './helpers.js';

// The dial job against the fake Twilio REST API: what Calls.json is asked, and that a call is
// never placed twice — not by a repeated job, not after a crash mid-dial, not after a lost answer.

const bed = await startBed();
const { h, fake } = bed;
t.teardown(bed.close);
h.ctx.config.PUBLIC_MEDIA_URL = 'wss://media.example.com';

const admit = async (p: Awaited<ReturnType<typeof phoneTenant>>, body: Record<string, unknown> = {}) => {
  const res = await placeOutbound(bed, p, body);
  if (res.statusCode !== 202) throw new Error(res.body);
  return res.json().session.id as string;
};
const callsTo = (to: string) => fake.calls.filter((c) => c.form.To[0] === to);
const held = async (projectId: string) => (await h.ctx.sql`select held_nano_usd from wallets where project_id = ${projectId}`)[0].held_nano_usd;

t.test('Calls.json: numbers, TwiML <Connect><Stream> with session and token, status callback, ring timeout, time limit', async (t) => {
  const p = await phoneTenant(bed);
  const id = await admit(p, { to: '+14155550001', max_duration_seconds: 100 });
  const before = fake.requests.length;
  const outcome = await processDial(h.ctx, id);
  t.equal(outcome.kind, 'dialed');
  const req = fake.requests.slice(before).find((r) => r.method === 'POST')!;
  t.equal(req.path, `/2010-04-01/Accounts/${p.account.sid}/Calls.json`);
  t.equal(req.headers.authorization, `Basic ${Buffer.from(`${p.account.sid}:${p.account.token}`).toString('base64')}`);
  const f = req.form;
  t.same(f.To, ['+14155550001']);
  t.same(f.From, [p.from]);
  t.same(f.StatusCallback, [`${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/status?session_id=${id}`]);
  t.same(f.StatusCallbackMethod, ['POST']);
  t.same(f.StatusCallbackEvent, ['initiated', 'ringing', 'answered', 'completed']);
  t.same(f.Timeout, ['60']);
  t.same(f.TimeLimit, ['160'], 'max_duration + 60 s: the carrier hangs up even if we cannot');
  t.notOk(f.Record, 'no recording asked for');
  t.notOk(f.RecordingStatusCallback);
  t.notOk(f.Url, 'TwiML inline: Twilio fetches nothing');

  const stream = streamOf(f.Twiml[0]);
  t.match(f.Twiml[0], /^<\?xml version="1.0" encoding="UTF-8"\?><Response><Connect><Stream url="wss:\/\/media.example.com\/v2\/carriers\/twilio\/stream">/);
  t.equal(stream.url, 'wss://media.example.com/v2/carriers/twilio/stream', 'no query string: Twilio would drop it');
  t.same(Object.keys(stream.parameters).sort(), ['session_id', 'token']);
  t.equal(stream.parameters.session_id, id);
  const row = await sessionRow(h, id);
  t.equal(row.token_hash, sha256Hex(stream.parameters.token), 'only the hash of the single-use token is stored');
  t.ok(stream.parameters.token.length >= 43, '256-bit token');
  t.equal(row.carrier_call_sid, (outcome as { callSid: string }).callSid);
  t.ok(row.dial_started_at);
  t.equal(row.status, 'created', 'created until the callee\'s phone rings');
  t.ok(Math.abs(row.token_expires_at.getTime() - (row.dial_started_at.getTime() + 120_000)) < 1000, 'window: ring 60 s + stream 60 s');
});

t.test('record: Record=true, RecordingStatusCallback, and recording_ref pending (reference_id null) once dialed', async (t) => {
  const p = await phoneTenant(bed, { record: true });
  const id = await admit(p, { to: '+14155550002' });
  await processDial(h.ctx, id);
  const f = callsTo('+14155550002')[0].form;
  t.same(f.Record, ['true']);
  t.same(f.RecordingStatusCallback, [`${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/recording?session_id=${id}`]);
  t.same(f.RecordingStatusCallbackMethod, ['POST']);
  t.same(f.RecordingStatusCallbackEvent, ['completed', 'absent']);
  const info = (await h.app.inject({ method: 'GET', url: `/v2/voice/sessions/${id}`, headers: p.tenant.machine })).json();
  t.same(info.recording_ref, { provider: 'twilio', reference_id: null, url: null, fetched_from: 'carrier' });
  t.equal(info.record, true);

  const off = await admit(p, { to: '+14155550003', record: false });
  await processDial(h.ctx, off);
  t.notOk(callsTo('+14155550003')[0].form.Record, 'record: false tightens the agent');
  t.equal((await sessionRow(h, off)).recording_ref, null);
});

t.test('a repeated job, or one after a crash mid-dial, never dials twice', async (t) => {
  const p = await phoneTenant(bed, { record: true });
  const id = await admit(p, { to: '+14155550004' });
  t.equal((await processDial(h.ctx, id)).kind, 'dialed');
  t.same(await processDial(h.ctx, id), { kind: 'skipped', why: 'already dialed' });
  t.equal(callsTo('+14155550004').length, 1);

  // An attempt that claimed the dial and then died (no CallSid, outcome unknown).
  const crashed = await admit(p, { to: '+14155550005' });
  await h.ctx.sql`update voice_sessions set dial_started_at = now() where id = ${crashed}`;
  t.same(await processDial(h.ctx, crashed), { kind: 'skipped', why: 'an earlier attempt started this dial; its outcome is unknown' });
  t.equal(callsTo('+14155550005').length, 0, 'not dialed');
  t.equal((await sweepTelephonyOnce(h.ctx)).unconfirmed, 0, 'within the grace period nothing happens');
  await h.ctx.sql`update voice_sessions set dial_started_at = now() - interval '31 seconds' where id = ${crashed}`;
  t.equal((await sweepTelephonyOnce(h.ctx)).unconfirmed, 1);
  const row = await sessionRow(h, crashed);
  t.match(row, { status: 'failed', end_reason: 'carrier_error', connected_seconds: 0, cost_nano_usd: 0n });
  t.same(row.recording_ref, { provider: 'twilio', reference_id: null, url: null, fetched_from: 'unavailable', detail: UNCONFIRMED_DIAL_DETAIL });
  t.same(await processDial(h.ctx, crashed), { kind: 'skipped', why: 'session ended or moved on' });
  t.equal(callsTo('+14155550005').length, 0);
});

t.test('Twilio refuses the call: failed / carrier_error, hold released, recording unavailable with a sentence', async (t) => {
  const p = await phoneTenant(bed, { record: true });
  const id = await admit(p, { to: '+14155550006' });
  t.equal(await held(p.tenant.projectId), 2n * MINUTE_NANO);
  fake.override({ status: 400, body: { code: 21215, message: 'Account not authorized to call +14155550006.', more_info: 'https://www.twilio.com/docs/errors/21215', status: 400 } });
  const outcome = await processDial(h.ctx, id);
  t.equal(outcome.kind, 'failed');
  const row = await sessionRow(h, id);
  t.match(row, { status: 'failed', end_reason: 'carrier_error', cost_nano_usd: 0n });
  t.match(row.dial_error, /HTTP 400 \(code 21215\)/);
  t.same(row.recording_ref, { provider: 'twilio', reference_id: null, url: null, fetched_from: 'unavailable', detail: NOT_PLACED_RECORDING_DETAIL });
  t.equal(await held(p.tenant.projectId), 0n);
  t.equal(await h.ctx.redis.zscore(`${h.ctx.redisPrefix}{slots}:slots:${p.tenant.projectId}`, id), null, 'slot freed');
});

t.test('the carrier went away between admission and dial: failed / carrier_error, Twilio never asked', async (t) => {
  const p = await phoneTenant(bed);
  const id = await admit(p, { to: '+14155550007' });
  await h.ctx.sql`update carriers set status = 'invalid' where id = ${p.carrierId}`;
  const before = fake.requests.length;
  t.same(await processDial(h.ctx, id), { kind: 'failed', detail: 'carrier connection unavailable' });
  t.equal(fake.requests.length, before);
});

t.test('lost answer: Twilio created the call but we never heard; no second dial; a status callback confirms it', async (t) => {
  const p = await phoneTenant(bed, { record: true });
  const id = await admit(p, { to: '+14155550008' });
  fake.override({ lostAnswer: true });
  const outcome = await processDial(h.ctx, id);
  t.equal(outcome.kind, 'unknown');
  t.equal(callsTo('+14155550008').length, 1, 'the call exists at the carrier');
  t.same(await processDial(h.ctx, id), { kind: 'skipped', why: 'an earlier attempt started this dial; its outcome is unknown' });
  t.equal(callsTo('+14155550008').length, 1, 'and only once');
  let row = await sessionRow(h, id);
  t.equal(row.carrier_call_sid, null);
  t.equal(row.recording_ref, null, 'not yet known to be recording');

  const cb = await sendStatusCallback(fake, callsTo('+14155550008')[0].sid, 'ringing');
  t.equal(cb.status, 204);
  row = await sessionRow(h, id);
  t.equal(row.carrier_call_sid, callsTo('+14155550008')[0].sid, 'the callback named the call');
  t.equal(row.status, 'active');
  t.same(row.recording_ref, { provider: 'twilio', reference_id: null, url: null, fetched_from: 'carrier' });
  await h.ctx.sql`update voice_sessions set dial_started_at = now() - interval '1 minute' where id = ${id}`;
  await sweepTelephonyOnce(h.ctx);
  t.equal((await sessionRow(h, id)).status, 'active', 'a confirmed call is not given up');
});

t.test('5xx and timeouts are unknown outcomes too (never retried)', async (t) => {
  const p = await phoneTenant(bed);
  const a = await admit(p, { to: '+14155550009' });
  fake.override({ status: 503, body: { code: 20500, message: 'Service unavailable', status: 503 } });
  t.equal((await processDial(h.ctx, a)).kind, 'unknown');
  const b = await admit(p, { to: '+14155550010' });
  fake.override({ hang: true });
  t.equal((await processDial(h.ctx, b, { timeoutMs: 200 })).kind, 'unknown');
  t.equal((await processDial(h.ctx, a)).kind, 'skipped');
  t.equal((await processDial(h.ctx, b)).kind, 'skipped');
  t.equal(callsTo('+14155550009').length + callsTo('+14155550010').length, 0);
});

t.test('429 proves nothing was created: the claim is given back and a retry dials once; the last attempt fails', async (t) => {
  const p = await phoneTenant(bed);
  const id = await admit(p, { to: '+14155550011' });
  fake.override({ status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 }, headers: { 'retry-after': '1' } });
  const retry = await processDial(h.ctx, id).then(() => null, (err: unknown) => err);
  t.ok(retry instanceof DialRetry, 'DialRetry: BullMQ tries again with backoff');
  t.equal((await sessionRow(h, id)).dial_started_at, null);
  t.equal((await processDial(h.ctx, id)).kind, 'dialed');
  t.equal(callsTo('+14155550011').length, 1);

  const last = await admit(p, { to: '+14155550012' });
  fake.override({ status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 } });
  t.equal((await processDial(h.ctx, last, { lastAttempt: true })).kind, 'failed');
  t.match(await sessionRow(h, last), { status: 'failed', end_reason: 'carrier_error' });
});

t.test('a session whose connect window closed before its job ran is not dialed', async (t) => {
  const p = await phoneTenant(bed);
  const id = await admit(p, { to: '+14155550013' });
  await h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where id = ${id}`;
  t.same(await processDial(h.ctx, id), { kind: 'skipped', why: 'connect window over' });
  t.equal(callsTo('+14155550013').length, 0);
});

t.test('through BullMQ: the worker places the call once, duplicates and re-queues collapse', async (t) => {
  const outcomes: [string, string][] = [];
  const stop = await startTelephonyWorkers(h.ctx, { sweeper: false, onOutcome: (sid, o) => outcomes.push([sid, o.kind]) });
  t.teardown(stop);
  const p = await phoneTenant(bed);
  const key = { 'idempotency-key': 'worker-1' };
  const res = await placeOutbound(bed, p, { to: '+14155550014' }, key);
  const id = res.json().session.id;
  await until(() => callsTo('+14155550014').length === 1, 5000, 'call placed');
  await until(async () => (await sessionRow(h, id)).carrier_call_sid !== null);
  t.equal((await placeOutbound(bed, p, { to: '+14155550014' }, key)).json().duplicate, true);
  await kickDial(h.ctx, id);
  const mine = () => outcomes.filter(([sid]) => sid === id).map(([, kind]) => kind);
  await until(() => mine().length >= 2, 5000, 'second job ran');
  t.same(mine(), ['dialed', 'skipped']);
  t.equal(callsTo('+14155550014').length, 1, 'one call');

  // A dial job lost before any worker saw it (Redis trouble at admission): the sweeper queues it again.
  await stop();
  const lost = (await placeOutbound(bed, p, { to: '+14155550015' })).json().session.id;
  await dialQueue(h.ctx).remove(lost);
  await h.ctx.sql`update voice_sessions set created_at = now() - interval '11 seconds' where id = ${lost}`;
  t.equal((await sweepTelephonyOnce(h.ctx)).requeued, 1);
  const again = await startTelephonyWorkers(h.ctx, { sweeper: false });
  t.teardown(again);
  await until(() => callsTo('+14155550015').length === 1, 5000, 'requeued call placed');
});
