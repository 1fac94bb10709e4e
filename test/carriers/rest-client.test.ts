import { createServer } from 'node:net';
import t from 'tap';
import { callForm, TwilioRestClient, TwilioRestError, verifyTwilioAccount } from '../../src/carriers/twilio/rest-client.js';
import { connectStreamTwiml } from '../../src/carriers/twilio/twiml.js';
import { startFakeTwilio } from '../fakes/twilio/rest.js';

const fake = await startFakeTwilio();
t.teardown(fake.close);
const account = fake.addAccount();
const creds = { accountSid: account.sid, authToken: account.token };
const opts = { baseUrl: fake.baseUrl, allowPrivate: true };

async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

async function rejection(p: Promise<unknown>): Promise<TwilioRestError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof TwilioRestError) return err;
    throw err;
  }
  throw new Error('expected a TwilioRestError');
}

t.test('verification: active account, wrong token, unknown account, suspended', async (t) => {
  t.same(await verifyTwilioAccount(creds, opts), { status: 'verified', detail: null });
  const req = fake.requests.at(-1)!;
  t.equal(req.method, 'GET');
  t.equal(req.path, `/2010-04-01/Accounts/${account.sid}.json`);
  t.equal(req.headers.authorization, `Basic ${Buffer.from(`${account.sid}:${account.token}`).toString('base64')}`);

  t.same(await verifyTwilioAccount({ ...creds, authToken: 'f'.repeat(32) }, opts), {
    status: 'invalid',
    detail: 'Twilio rejected the Account SID or Auth Token (HTTP 401, code 20003)',
  });
  const other = fake.addAccount({ status: 'suspended' });
  t.same(await verifyTwilioAccount({ accountSid: other.sid, authToken: other.token }, opts), { status: 'invalid', detail: 'the Twilio account is suspended' });
  fake.override({ status: 404, body: { code: 20404, message: 'The requested resource was not found', more_info: 'https://www.twilio.com/docs/errors/20404', status: 404 } });
  t.match(await verifyTwilioAccount(creds, opts), { status: 'invalid', detail: /no such account \(HTTP 404, code 20404\)/ });
});

t.test('verification: down, timeout, wrong server, redirect, 5xx, private address', async (t) => {
  const port = await closedPort();
  t.same(await verifyTwilioAccount(creds, { baseUrl: `http://127.0.0.1:${port}`, allowPrivate: true }), {
    status: 'invalid',
    detail: `could not connect to 127.0.0.1:${port}: connection refused`,
  });
  fake.override({ hang: true });
  const host = new URL(fake.baseUrl).host;
  t.same(await verifyTwilioAccount(creds, { ...opts, timeoutMs: 300 }), { status: 'invalid', detail: `${host} did not answer within 0.3 s` });
  fake.override({ status: 200, body: { object: 'list', data: [] } });
  t.match(await verifyTwilioAccount(creds, opts), { status: 'invalid', detail: /not with a Twilio account; check base_url/ });
  fake.override({ status: 200, body: { sid: 'AC' + '0'.repeat(32), status: 'active' } });
  t.match(await verifyTwilioAccount(creds, opts), { status: 'invalid', detail: /different account/ });
  fake.override({ status: 302, headers: { location: 'https://elsewhere.example.com/' } });
  t.match(await verifyTwilioAccount(creds, opts), { status: 'invalid', detail: /redirect \(HTTP 302\); check base_url/ });
  fake.override({ status: 503, body: { code: 20503, message: 'Service unavailable', status: 503 } });
  t.same(await verifyTwilioAccount(creds, opts), { status: 'invalid', detail: 'Twilio answered HTTP 503, code 20503; try again later' });
  const before = fake.requests.length;
  t.match(await verifyTwilioAccount(creds, { baseUrl: fake.baseUrl, allowPrivate: false }), { status: 'invalid', detail: /not a public https address/ });
  t.equal(fake.requests.length, before, 'nothing was sent');
});

const twiml = connectStreamTwiml({ url: 'wss://media.example.com/v2/carrier/twilio', parameters: { session_id: 's-1' } });

t.test('createCall posts the documented form and returns the call sid', async (t) => {
  const call = await new TwilioRestClient(creds, opts).createCall({
    from: '+14155550100',
    to: '+14155550199',
    twiml,
    statusCallback: 'https://api.example.com/v2/carriers/twilio/status?session=s-1',
    statusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    record: true,
    recordingStatusCallback: 'https://api.example.com/v2/carriers/twilio/recording',
    recordingStatusCallbackEvent: ['completed', 'absent'],
    timeoutSeconds: 30,
    timeLimitSeconds: 600,
  });
  t.match(call.sid, /^CA[0-9a-f]{32}$/);
  t.equal(call.status, 'queued');
  t.equal(fake.calls.at(-1)!.sid, call.sid);
  const req = fake.requests.at(-1)!;
  t.equal(req.method, 'POST');
  t.equal(req.path, `/2010-04-01/Accounts/${account.sid}/Calls.json`);
  t.equal(req.headers['content-type'], 'application/x-www-form-urlencoded');
  t.equal(req.headers.authorization, `Basic ${Buffer.from(`${account.sid}:${account.token}`).toString('base64')}`);
  t.same(req.form, {
    To: ['+14155550199'],
    From: ['+14155550100'],
    Twiml: [twiml],
    StatusCallback: ['https://api.example.com/v2/carriers/twilio/status?session=s-1'],
    StatusCallbackMethod: ['POST'],
    StatusCallbackEvent: ['initiated', 'ringing', 'answered', 'completed'],
    Record: ['true'],
    RecordingStatusCallback: ['https://api.example.com/v2/carriers/twilio/recording'],
    RecordingStatusCallbackMethod: ['POST'],
    RecordingStatusCallbackEvent: ['completed', 'absent'],
    Timeout: ['30'],
    TimeLimit: ['600'],
  });
  t.match(req.rawBody, 'StatusCallbackEvent=initiated&StatusCallbackEvent=ringing', 'lists are repeated keys');
  t.match(req.rawBody, 'To=%2B14155550199', '+ is percent-encoded');
});

t.test('callForm leaves out what was not asked for', async (t) => {
  t.same([...callForm({ from: '+1', to: '+2', twiml: '<Response/>', record: false, recordingStatusCallback: 'https://x' }).keys()], ['To', 'From', 'Twiml']);
});

t.test("Twilio's error body is mapped; the auth token never appears in an error", async (t) => {
  const client = new TwilioRestClient(creds, opts);
  const bad = await rejection(client.createCall({ from: '+14155550100', to: '12345', twiml }));
  t.match(bad, { kind: 'invalid_request', httpStatus: 400, twilioCode: 21211, moreInfo: 'https://www.twilio.com/docs/errors/21211', maybeApplied: false, retryable: false });
  t.equal(bad.message, "Twilio answered HTTP 400 (code 21211): The 'To' number 12345 is not a valid phone number.");

  const wrong = await rejection(new TwilioRestClient({ ...creds, authToken: 'wrong-token-000' }, opts).createCall({ from: '+14155550100', to: '+14155550199', twiml }));
  t.match(wrong, { kind: 'auth', httpStatus: 401, twilioCode: 20003 });

  fake.override({ status: 400, body: { code: 21210, message: `Echo of ${account.token} by a strange server`, status: 400 } });
  const echoed = await rejection(client.createCall({ from: '+14155550100', to: '+14155550199', twiml }));
  t.notMatch(echoed.message, account.token);
  t.notMatch(JSON.stringify({ ...echoed, message: echoed.message }), account.token);
  t.match(echoed.message, '[redacted]');

  fake.override({ status: 429, body: { code: 20429, message: 'Too Many Requests', status: 429 }, headers: { 'retry-after': '3' } });
  t.match(await rejection(client.createCall({ from: '+14155550100', to: '+14155550199', twiml })), { kind: 'rate_limited', retryable: true, retryAfterSeconds: 3, maybeApplied: false });

  fake.override({ status: 500, body: { code: 20500, message: 'Internal Server Error', status: 500 } });
  t.match(await rejection(client.createCall({ from: '+14155550100', to: '+14155550199', twiml })), { kind: 'server', retryable: true, maybeApplied: true });

  fake.override({ status: 200, body: 'not json' });
  t.match(await rejection(client.createCall({ from: '+14155550100', to: '+14155550199', twiml })), { kind: 'unexpected_response', maybeApplied: true });
});

t.test('no answer: a create that may have reached Twilio says so', async (t) => {
  const client = new TwilioRestClient(creds, { ...opts, timeoutMs: 300 });
  fake.override({ hang: true });
  t.match(await rejection(client.createCall({ from: '+14155550100', to: '+14155550199', twiml })), { kind: 'timeout', maybeApplied: true, retryable: true });
  fake.override({ destroy: true });
  t.match(await rejection(client.createCall({ from: '+14155550100', to: '+14155550199', twiml })), { kind: 'network', maybeApplied: true });
  const port = await closedPort();
  const down = new TwilioRestClient(creds, { baseUrl: `http://127.0.0.1:${port}`, allowPrivate: true });
  t.match(await rejection(down.createCall({ from: '+14155550100', to: '+14155550199', twiml })), { kind: 'network', message: /connection refused/ });
});

t.test("the caller's abort signal is honoured and passed through as is", async (t) => {
  fake.override({ hang: true });
  const ac = new AbortController();
  const p = new TwilioRestClient(creds, opts).createCall({ from: '+14155550100', to: '+14155550199', twiml, signal: ac.signal });
  setTimeout(() => ac.abort(new Error('job cancelled')), 50);
  await t.rejects(p, { message: 'job cancelled' });
});
