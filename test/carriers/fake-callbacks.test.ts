import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { TwilioRestClient } from '../../src/carriers/twilio/rest-client.js';
import { validateSignature } from '../../src/carriers/twilio/signature.js';
import { connectStreamTwiml, REFUSALS, sayAndHangupTwiml } from '../../src/carriers/twilio/twiml.js';
import { sendIncomingCall, sendRecordingCallback, sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { startFakeTwilio } from '../fakes/twilio/rest.js';

// The fake carrier's callbacks (status, recording, inbound voice) are signed the way Twilio signs
// them; our validator, reading the request as an app would, accepts them and rejects tampering.

const fake = await startFakeTwilio();
const account = fake.addAccount();
const seen: { path: string; form: URLSearchParams; valid: boolean }[] = [];
const app = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    const url = `http://${req.headers.host}${req.url}`;
    const valid = validateSignature(account.token, req.headers['x-twilio-signature'] as string | undefined, url, form);
    seen.push({ path: req.url ?? '', form, valid });
    if (!valid) {
      res.writeHead(403).end();
      return;
    }
    if (req.url?.startsWith('/voice')) {
      res.writeHead(200, { 'content-type': 'text/xml' }).end(sayAndHangupTwiml(REFUSALS.unavailable));
      return;
    }
    res.writeHead(204).end();
  });
});
await new Promise<void>((r) => app.listen(0, '127.0.0.1', r));
const appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
t.teardown(async () => {
  app.closeAllConnections();
  await new Promise((r) => app.close(r));
  await fake.close();
});

t.test('status and recording callbacks of a placed call validate; tampering does not', async (t) => {
  const call = await new TwilioRestClient({ accountSid: account.sid, authToken: account.token }, { baseUrl: fake.baseUrl, allowPrivate: true }).createCall({
    from: '+14155550100',
    to: '+14155550199',
    twiml: connectStreamTwiml({ url: 'wss://media.example.com/s', parameters: { session_id: 's-1' } }),
    statusCallback: `${appUrl}/status?session_id=s-1`,
    statusCallbackEvent: ['ringing', 'answered', 'completed'],
    record: true,
    recordingStatusCallback: `${appUrl}/recording?session_id=s-1`,
  });
  for (const status of ['ringing', 'in-progress'] as const) t.equal((await sendStatusCallback(fake, call.sid, status)).status, 204, status);
  const done = await sendStatusCallback(fake, call.sid, 'completed', { durationSeconds: 42 });
  t.equal(done.status, 204);
  t.equal(done.sent.get('CallDuration'), '42');
  t.same(seen.map((s) => [s.path, s.form.get('CallStatus'), s.form.get('SequenceNumber'), s.valid]), [
    ['/status?session_id=s-1', 'ringing', '0', true],
    ['/status?session_id=s-1', 'in-progress', '1', true],
    ['/status?session_id=s-1', 'completed', '2', true],
  ]);
  t.equal(seen[0].form.get('CallSid'), call.sid);
  t.equal(seen[0].form.get('AccountSid'), account.sid);

  const rec = await sendRecordingCallback(fake, call.sid, { durationSeconds: 40 });
  t.equal(rec.status, 204);
  t.match(rec.recordingSid, /^RE[0-9a-f]{32}$/);
  t.match(seen.at(-1), { path: '/recording?session_id=s-1', valid: true });
  t.equal(seen.at(-1)!.form.get('RecordingStatus'), 'completed');

  const forged = await sendStatusCallback(fake, call.sid, 'completed', { signature: 'AAAAAAAAAAAAAAAAAAAAAAAAAAA=' });
  t.equal(forged.status, 403, 'a wrong signature is refused');
  const swapped = await sendStatusCallback(fake, call.sid, 'busy', { signature: done.signature });
  t.equal(swapped.status, 403, "another request's signature is refused");
});

t.test('an inbound call gets TwiML back', async (t) => {
  const answer = await sendIncomingCall(account, `${appUrl}/voice/inbound`, { from: '+14155550123', to: '+14155550100' });
  t.equal(answer.status, 200);
  t.equal(answer.body, sayAndHangupTwiml(REFUSALS.unavailable));
  t.match(seen.at(-1), { path: '/voice/inbound', valid: true });
  t.equal(seen.at(-1)!.form.get('Direction'), 'inbound');
  const forged = await sendIncomingCall({ ...account, token: 'f'.repeat(32) }, `${appUrl}/voice/inbound`, { from: '+14155550123', to: '+14155550100' });
  t.equal(forged.status, 403, 'signed with another token');
});
