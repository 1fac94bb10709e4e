import t from 'tap';
import { sweepOnce } from '../../src/sessions/sweepers.js';
import { sweepTelephonyOnce } from '../../src/telephony/sweeper.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { dialed, phoneTenant, placeOutbound, sessionRow, startBed } from './helpers.js';

// The telephony sweeper settles what the carrier or a process left hanging.

const bed = await startBed();
const { h, fake } = bed;
t.teardown(bed.close);
h.ctx.config.PUBLIC_MEDIA_URL = 'wss://media.example.com';

t.test('rang or answered, but the media stream never came: failed / carrier_error once the window closes', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId, call } = await dialed(bed, p);
  await sendStatusCallback(fake, call.sid, 'in-progress');
  t.equal((await sweepTelephonyOnce(h.ctx)).noMedia, 0, 'not while the window is open');
  await h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where id = ${sessionId}`;
  // The session sweeper leaves it alone (its node lease outlives the token).
  await sweepOnce(h.ctx);
  t.equal((await sessionRow(h, sessionId)).status, 'active');
  t.equal((await sweepTelephonyOnce(h.ctx)).noMedia, 1);
  t.match(await sessionRow(h, sessionId), { status: 'failed', end_reason: 'carrier_error', connected_seconds: 0, cost_nano_usd: 0n });
});

t.test('a dialed call that never rang: the session sweeper fails it not_connected when the window closes', async (t) => {
  const p = await phoneTenant(bed);
  const { sessionId } = await dialed(bed, p);
  await h.ctx.sql`update voice_sessions set token_expires_at = now() - interval '1 second' where id = ${sessionId}`;
  await sweepTelephonyOnce(h.ctx);
  t.equal((await sessionRow(h, sessionId)).status, 'created', 'not the telephony sweeper\'s');
  await sweepOnce(h.ctx);
  t.match(await sessionRow(h, sessionId), { status: 'failed', end_reason: 'not_connected' });
});

t.test('Idempotency-Keys older than 24 h are forgotten', async (t) => {
  const p = await phoneTenant(bed);
  await placeOutbound(bed, p, {}, { 'idempotency-key': 'old' });
  await placeOutbound(bed, p, {}, { 'idempotency-key': 'new' });
  await h.ctx.sql`update idempotency_keys set expires_at = now() - interval '1 minute' where key = 'old'`;
  t.equal((await sweepTelephonyOnce(h.ctx)).keysForgotten, 1);
  t.same((await h.ctx.sql`select key from idempotency_keys where project_id = ${p.tenant.projectId}`).map((r) => r.key), ['new']);
});
