import fc from 'fast-check';
import t from 'tap';
import { postSigned } from '../fakes/twilio/callbacks.js';
import { dialed, phoneTenant, startBed } from './helpers.js';

// Property: whatever reaches the Twilio callback routes — forged or correctly signed, any form
// fields, any content type, any path value — the answer is never a 5xx; the voice webhook,
// once the signature holds, always answers 200 TwiML.

const bed = await startBed();
const { h } = bed;
t.teardown(bed.close);
h.ctx.config.PUBLIC_MEDIA_URL = 'wss://media.example.com';
const p = await phoneTenant(bed, { inboundAgent: true, record: true });
const { sessionId, call } = await dialed(bed, p);

const field = fc.constantFrom('CallSid', 'CallStatus', 'To', 'From', 'AccountSid', 'RecordingSid', 'RecordingUrl', 'RecordingStatus', 'CallDuration', 'x');
const value = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled', 'absent', call.sid, p.from, `RE${'a'.repeat(32)}`, 'https://api.twilio.com/r', '\u0000', '%%'),
);
const form = fc.array(fc.tuple(field, value), { maxLength: 8 }).map((pairs) => new URLSearchParams(pairs));
const kind = fc.constantFrom('status', 'recording', 'voice');
const query = fc.constantFrom('', `?session_id=${sessionId}`, '?session_id=nope', '?session_id=00000000-0000-4000-8000-000000000000');

t.test('signed callbacks with arbitrary fields: never 5xx; voice always TwiML', async (t) => {
  await fc.assert(
    fc.asyncProperty(kind, query, form, async (k, q, f) => {
      const url = `${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/${k}${k === 'voice' ? '' : q}`;
      const res = await postSigned(url, f, p.account.token);
      if (res.status >= 500) throw new Error(`${res.status} for ${url} ${f}`);
      if (k === 'voice' && (res.status !== 200 || !res.body.startsWith('<?xml'))) throw new Error(`voice answered ${res.status}: ${res.body}`);
    }),
    { numRuns: 150 },
  );
  t.pass('no 5xx');
});

t.test('forged or malformed requests: never 5xx, never accepted', async (t) => {
  const contentType = fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'text/plain', 'multipart/form-data', '');
  const pathValue = fc.oneof(fc.constant(p.carrierId), fc.uuid(), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constant('a'.repeat(200)));
  await fc.assert(
    fc.asyncProperty(kind, pathValue, contentType, fc.string({ maxLength: 200 }), fc.option(fc.string({ maxLength: 40 })), async (k, carrier, ct, body, sig) => {
      const headers: Record<string, string> = {};
      if (ct) headers['content-type'] = ct;
      if (sig !== null) headers['x-twilio-signature'] = sig.replace(/[^\x20-\x7e]/g, '');
      const res = await fetch(`${bed.baseUrl}/v2/carriers/twilio/${carrier}/${k}`, { method: 'POST', headers, body });
      if (res.status >= 500) throw new Error(`${res.status} for ${carrier}/${k} ${ct}`);
      if (res.status < 400) throw new Error(`accepted a forged request: ${res.status}`);
      const json = (await res.json()) as { detail?: unknown };
      if (json.detail === undefined) throw new Error('error without detail');
    }),
    { numRuns: 150 },
  );
  t.pass('all refused with the error shape');
});
