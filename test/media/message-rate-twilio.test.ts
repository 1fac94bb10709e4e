import t, { type Test } from 'tap';
import { FakeMediaStream } from '../fakes/twilio/media-client.js';
import { encodeMulaw, tone } from '../fakes/twilio/mulaw.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { dialed, openStream, phoneTenant, sessionRow, startBed, streamOf, until } from '../telephony/helpers.js';

// The media socket's per-socket message rate limit on Twilio streams (defaults: 200/s, burst
// 400), every message counted in every state of the stream. Twilio's protocol has no error
// message: a stream over the limit is logged and closed with 1008, and its call (if it was
// running) ends as a hang-up, settled once. A phone line (50 media messages/s, marks) is never cut.

const bed = await startBed({ media: true });
const { h } = bed;
const media = bed.media!;
t.teardown(bed.close);

const p = await phoneTenant(bed, { maxConcurrent: 100, wallet: 10_000n * MINUTE_NANO });
const FRAME = encodeMulaw(tone(440, 20)); // one 20 ms media message's μ-law

/** The close as the peer saw it. */
const closeOf = (s: FakeMediaStream) =>
  new Promise<{ code: number; reason: string }>((resolve) => s.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));

async function running(): Promise<{ sessionId: string; stream: FakeMediaStream; closed: Promise<{ code: number; reason: string }> }> {
  const { sessionId, call } = await dialed(bed, p);
  const stream = await openStream(call, p.account);
  const closed = closeOf(stream);
  await until(() => media.sessions.has(sessionId), 5000, 'call running');
  return { sessionId, stream, closed };
}

async function settledOnce(t: Test, sessionId: string): Promise<void> {
  await until(async () => (await sessionRow(h, sessionId)).status !== 'active', 5000, 'settled');
  await new Promise((r) => setTimeout(r, 200));
  await media.idle();
  t.match(await sessionRow(h, sessionId), { status: 'completed', end_reason: 'caller_hangup' }, 'completed as a caller hang-up');
  const ledger = await h.ctx.sql`select kind from wallet_ledger where session_id = ${sessionId} order by kind`;
  t.same(
    ledger.map((l) => l.kind),
    ['charge', 'hold', 'release'],
    'charged and released once',
  );
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from webhook_events where type = 'call.completed' and data->'session'->>'id' = ${sessionId}`;
  t.equal(n, 1, 'one call.completed');
  t.notOk(media.sessions.has(sessionId));
}

t.test('a running stream flooding media messages is closed with 1008 and nothing else; the call settles once', async (t) => {
  const { sessionId, stream, closed } = await running();
  for (let i = 0; i < 3000; i++) stream.sendMediaFrame(FRAME);
  t.same(await closed, { code: 1008, reason: 'message rate limit exceeded' });
  t.same(stream.garbage, [], 'no non-JSON frames');
  t.ok(
    stream.received.every((m) => m.event === 'media' || m.event === 'mark' || m.event === 'clear'),
    'only Twilio protocol messages (it has no error message)',
  );
  await settledOnce(t, sessionId);
});

t.test('a phone line is never cut: 50 media messages/s for 4 s; and a burst of 400 at once, then the line', async (t) => {
  const line = await running();
  await line.stream.playPcm(tone(440, 4000), { realtime: true });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(line.stream.closeCode, null, 'still open');
  t.ok(media.sessions.has(line.sessionId));
  t.ok(line.stream.messages('media').length >= 190, `${line.stream.messages('media').length} frames echoed`);

  const burst = await running();
  await burst.stream.playMulaw(encodeMulaw(tone(440, 400 * 20))); // 400 media messages at once
  await burst.stream.playPcm(tone(440, 2000), { realtime: true });
  await new Promise((r) => setTimeout(r, 100));
  t.equal(burst.stream.closeCode, null, 'still open after the burst');
  t.ok(media.sessions.has(burst.sessionId));

  for (const x of [line, burst]) {
    await x.stream.hangUp();
    t.equal((await x.closed).code, 1000, 'then stop ends it normally');
  }
  await media.idle();
  for (const x of [line, burst]) t.match(await sessionRow(h, x.sessionId), { status: 'completed', end_reason: 'caller_hangup' });
});

t.test('the burst plus 50 at once is over', async (t) => {
  const { sessionId, stream, closed } = await running();
  await stream.playMulaw(encodeMulaw(tone(440, 450 * 20)));
  t.equal((await closed).code, 1008);
  await settledOnce(t, sessionId);
});

t.test('a stream flooding before its start is closed with 1008 at once (not 4401 after the start timeout)', async (t) => {
  const { call } = await dialed(bed, p);
  const stream = await FakeMediaStream.connect(streamOf(call.form.Twiml[0]).url);
  const closed = closeOf(stream);
  const t0 = Date.now();
  for (let i = 0; i < 3000; i++) stream.sendConnected();
  t.same(await closed, { code: 1008, reason: 'message rate limit exceeded' });
  t.ok(Date.now() - t0 < 2000, 'closed within the flood');
});

t.test('a flood right behind `start` (the call still activating, or just running) closes 1008 and the call settles once', async (t) => {
  const { sessionId, call } = await dialed(bed, p);
  const { url, parameters } = streamOf(call.form.Twiml[0]);
  const stream = await FakeMediaStream.connect(url, { accountSid: p.account.sid, callSid: call.sid, customParameters: parameters });
  const closed = closeOf(stream);
  stream.begin();
  for (let i = 0; i < 3000; i++) stream.sendMediaFrame(FRAME);
  t.equal((await closed).code, 1008);
  await until(async () => (await sessionRow(h, sessionId)).media_connected_at !== null, 5000, 'activated');
  await settledOnce(t, sessionId);
});
