import t from 'tap';
import { admitSession } from '../../src/sessions/admission.js';
import { processDial } from '../../src/telephony/dial.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { FakeMediaStream, FRAME_BYTES } from '../fakes/twilio/media-client.js';
import { encodeMulaw, tone } from '../fakes/twilio/mulaw.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { dialed, openStream, phoneTenant, placeOutbound, sessionRow, startBed, streamOf, until } from './helpers.js';
import { GREETING_MS, testPipelines } from './pipelines.js';

// Whole phone calls through the Twilio Media Streams bridge: the fake carrier dials in with the
// TwiML our dial job gave it, speaks μ-law 8 kHz in base64 JSON and records what comes back.

const pipelines = testPipelines();
const bed = await startBed({ media: { pipelineFactory: pipelines.factory } });
const { h, fake } = bed;
const media = bed.media!;
t.teardown(bed.close);

const rms = (pcm: Int16Array) => Math.sqrt(pcm.reduce((s, x) => s + x * x, 0) / Math.max(1, pcm.length));

t.test('a full outbound call: placed, ringing, answered, echoed μ-law both ways, caller hangs up, settled from the stream', async (t) => {
  const p = await phoneTenant(bed);
  const res = await placeOutbound(bed, p, { to: '+14155551111' });
  const sessionId = res.json().session.id;
  const outcome = await processDial(h.ctx, sessionId);
  t.equal(outcome.kind, 'dialed');
  const call = fake.calls.find((c) => c.form.To[0] === '+14155551111')!;
  t.equal(streamOf(call.form.Twiml[0]).url, `ws://127.0.0.1:${media.port}/v2/carriers/twilio/stream`);

  await sendStatusCallback(fake, call.sid, 'initiated');
  await sendStatusCallback(fake, call.sid, 'ringing');
  await sendStatusCallback(fake, call.sid, 'in-progress');
  t.match(await sessionRow(h, sessionId), { status: 'active', media_connected_at: null });

  const stream = await openStream(call, p.account);
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'media connected');
  const connected = await sessionRow(h, sessionId);
  t.match(connected, { status: 'active', token_hash: null, carrier_call_sid: call.sid });
  t.ok(connected.token_used_at);
  t.ok(connected.started_at < connected.media_connected_at, 'started when it rang, media from the stream');

  await stream.playPcm(tone(440, 1000), { realtime: true });
  await stream.waitFor((s) => s.messages('media').length >= 40, 3000, 'echo');
  const media1 = stream.messages('media');
  for (const m of media1) {
    t.equal(m.json.streamSid, stream.streamSid);
    t.same(Object.keys(m.json).sort(), ['event', 'media', 'streamSid']);
  }
  t.ok(media1.every((m) => Buffer.from(String((m.json.media as { payload: string }).payload), 'base64').length === FRAME_BYTES), '20 ms of μ-law per message');
  t.ok(rms(stream.receivedPcm().subarray(800, 4000)) > 3000, 'the caller\'s tone came back');
  t.equal(stream.garbage.length, 0, 'only JSON text frames');

  // Twilio's completed may come while the stream still runs: the stream's own end settles.
  await sendStatusCallback(fake, call.sid, 'completed', { durationSeconds: 2 });
  t.equal((await sessionRow(h, sessionId)).status, 'active');

  await stream.hangUp();
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.match(row, { status: 'completed', end_reason: 'caller_hangup', cost_nano_usd: MINUTE_NANO });
  t.ok(row.connected_seconds >= 1 && row.connected_seconds <= 3, `connected ${row.connected_seconds} s, measured from the media stream`);
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from wallet_ledger where session_id = ${sessionId} and kind = 'charge'`;
  t.equal(n, 1, 'charged once');
});

t.test('barge-in: the caller speaks over the agent and the phone gets `clear` at once; turn_complete is a mark', async (t) => {
  const p = await phoneTenant(bed);
  const first = await dialed(bed, p, { metadata: { pipeline: 'talker' } });
  const quiet = await openStream(first.call, p.account);
  // Uninterrupted: the greeting plays out, then a mark; Twilio echoes it back once played.
  await quiet.waitFor((s) => s.marks().includes('turn_complete'), GREETING_MS + 3000, 'turn_complete mark');
  t.equal(quiet.clears(), 0);
  const frames = quiet.messages('media').length;
  t.ok(frames >= GREETING_MS / 20 - 2 && frames <= GREETING_MS / 20 + 2, `${frames} frames of greeting`);
  const markAt = quiet.messages('mark')[0].atMs;
  t.ok(quiet.messages('media').every((m) => m.atMs <= markAt), 'the mark follows the audio');
  await quiet.hangUp();

  const { sessionId, call } = await dialed(bed, p, { metadata: { pipeline: 'talker' } });
  const stream = await openStream(call, p.account);
  await stream.waitFor((s) => s.messages('media').length >= 25, 3000, 'agent speaking');
  const spokeAt = Date.now();
  void stream.playPcm(tone(300, 600, 8000, 12000), { realtime: true });
  await stream.waitFor((s) => s.clears() === 1, 2000, 'clear');
  const clear = stream.messages('clear')[0];
  t.same(clear.json, { event: 'clear', streamSid: stream.streamSid });
  t.ok(clear.atMs - spokeAt < 500, `clear ${clear.atMs - spokeAt} ms after the caller started speaking`);
  await new Promise((r) => setTimeout(r, 300));
  const after = stream.messages('media').filter((m) => m.atMs > clear.atMs + 20).length;
  t.equal(after, 0, 'no agent audio after the clear');
  t.notOk(stream.marks().includes('turn_complete'), 'an interrupted turn is not complete');
  t.notOk(stream.received.some((m) => m.event !== 'media' && m.event !== 'clear'), 'nothing but media and clear went out (no `interrupted` frame)');
  t.equal(pipelines.talkers.get(sessionId)!.bargeIns, 1);

  // DTMF in: the caller's keys reach the pipeline; `#` makes the agent hang up, which closes the stream.
  stream.sendDtmf('4');
  stream.sendDtmf('2');
  stream.sendDtmf('#');
  await stream.waitForClose(3000);
  t.equal(stream.closeCode, 1000);
  t.same(pipelines.talkers.get(sessionId)!.digits, ['4', '2', '#']);
  await media.idle();
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'agent_hangup' });
});

t.test('a dropped stream (no stop) ends the call as a caller hang-up', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  const stream = await openStream(call, p.account);
  await until(async () => (await sessionRow(h, sessionId)).status === 'active');
  await stream.playMulaw(encodeMulaw(tone(500, 200)));
  stream.drop();
  await until(async () => (await sessionRow(h, sessionId)).settled_at !== null, 5000, 'settled');
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'caller_hangup' });
});

t.test('refusals: the spec close codes, decided by the start message', async (t) => {
  const p = await phoneTenant(bed);
  const codeOf = async (stream: FakeMediaStream) => {
    await stream.waitForClose(5000);
    return stream.closeCode;
  };
  const { sessionId, call } = await dialed(bed, p);
  const { parameters } = streamOf(call.form.Twiml[0]);
  t.equal(await codeOf(await openStream(call, p.account, { customParameters: { ...parameters, token: 'x'.repeat(43) } })), 4401, 'bad token');
  t.equal(await codeOf(await openStream(call, p.account, { customParameters: { session_id: sessionId } })), 4401, 'no token');
  t.equal(await codeOf(await openStream(call, p.account, { customParameters: { ...parameters, session_id: '00000000-0000-4000-8000-000000000000' } })), 4404, 'unknown session');
  t.equal(await codeOf(await openStream(call, p.account, { accountSid: `AC${'9'.repeat(32)}` })), 4409, 'another Twilio account');
  t.equal((await sessionRow(h, sessionId)).status, 'created', 'refusals leave the call connectable');

  const ok = await openStream(call, p.account);
  await until(async () => (await sessionRow(h, sessionId)).status === 'active');
  t.equal(await codeOf(await openStream(call, p.account)), 4401, 'the token is single use');
  await ok.hangUp();

  const web = await admitSession(h.ctx, p.tenant.projectId, { agent_id: p.agentId, sample_rate_in: 8000, sample_rate_out: 8000, variables: {}, encoding: 'pcm16' });
  const webToken = new URL(web.ws_url).searchParams.get('token')!;
  t.equal(await codeOf(await openStream(call, p.account, { customParameters: { session_id: web.session.id, token: webToken } })), 4409, 'a web session cannot be joined through a carrier stream');

  // The carrier said the call ended before any stream: a late stream cannot bring it back.
  const late = await dialed(bed, p);
  await sendStatusCallback(fake, late.call.sid, 'completed');
  t.equal(await codeOf(await openStream(late.call, p.account)), 4401);

  // Not μ-law 8 kHz: 1003, and the call is still there for a proper stream.
  const other = await dialed(bed, p);
  const odd = await FakeMediaStream.connect(streamOf(other.call.form.Twiml[0]).url);
  odd.sendJson({ event: 'start', sequenceNumber: '1', start: { accountSid: p.account.sid, streamSid: `MZ${'1'.repeat(32)}`, callSid: other.call.sid, tracks: ['inbound'], customParameters: streamOf(other.call.form.Twiml[0]).parameters, mediaFormat: { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 } }, streamSid: `MZ${'1'.repeat(32)}` });
  t.equal(await codeOf(odd), 1003);
  t.equal((await sessionRow(h, other.sessionId)).status, 'created');

  // Garbage before start is ignored; a stop before start just leaves.
  const junk = await FakeMediaStream.connect(streamOf(other.call.form.Twiml[0]).url);
  junk.ws.send('not json');
  junk.ws.send(Buffer.from([1, 2, 3]));
  junk.sendJson({ event: 'media', media: { payload: 'AAAA' } });
  junk.sendStop();
  t.equal(await codeOf(junk), 1000);
});

t.test('a hang-up while the stream is being activated still settles the call', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  const stream = await openStream(call, p.account);
  stream.drop();
  await until(async () => (await sessionRow(h, sessionId)).settled_at !== null || (await sessionRow(h, sessionId)).status === 'created', 5000);
  await new Promise((r) => setTimeout(r, 300));
  await media.idle();
  const row = await sessionRow(h, sessionId);
  t.ok(row.status === 'created' || (row.status === 'completed' && row.end_reason === 'caller_hangup'), `${row.status}/${row.end_reason}`);
  t.equal(media.sessions.size, 0, 'no call left running on the node');
});
