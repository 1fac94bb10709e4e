import t from 'tap';
import { nextNumber, phoneTenant, startBed, type PhoneTenant } from './helpers.js';
import { sendIncomingCall } from '../fakes/twilio/callbacks.js';

// Numbers configured at the carrier, against the fake Twilio's IncomingPhoneNumbers resource:
// binding sets VoiceUrl/StatusCallback (and clears an application), unbinding and deleting put
// back what was there, a number changed at Twilio since is left alone, failures stay on the
// record until sync, and the account's numbers can be listed for import.

const bed = await startBed();
t.teardown(bed.close);
const { h, fake } = bed;
const p = await phoneTenant(bed);
const numbersUrl = (c: PhoneTenant) => `/console/v2/projects/${c.tenant.projectId}/carriers/${c.carrierId}/numbers`;
const voiceUrl = `${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/voice`;
const statusUrl = `${bed.baseUrl}/v2/carriers/twilio/${p.carrierId}/status`;
const OLD = { voiceUrl: 'https://old.example.com/voice', voiceMethod: 'GET', statusCallback: 'https://old.example.com/status', statusCallbackMethod: 'GET' };

const add = (payload: object, c = p) => h.app.inject({ method: 'POST', url: numbersUrl(c), headers: c.tenant.bearer, payload });
const patch = (id: string, payload: object) => h.app.inject({ method: 'PATCH', url: `${numbersUrl(p)}/${id}`, headers: p.tenant.bearer, payload });
const del = (id: string) => h.app.inject({ method: 'DELETE', url: `${numbersUrl(p)}/${id}`, headers: p.tenant.bearer });
const sync = (id: string) => h.app.inject({ method: 'POST', url: `${numbersUrl(p)}/${id}/sync`, headers: p.tenant.bearer });
const updatesOf = (sid: string) => fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith(`/IncomingPhoneNumbers/${sid}.json`));

t.test('binding at creation points the number here; the record shows the URL; a call then connects', async (t) => {
  const e164 = nextNumber();
  const n = fake.addNumber(p.account.sid, e164, { ...OLD, voiceApplicationSid: `AP${'1'.repeat(32)}` });
  const res = await add({ e164, outbound_enabled: false, agent_id: p.agentId });
  t.equal(res.statusCode, 201);
  t.match(res.json(), { voice_url: voiceUrl, carrier_configured: true, carrier_error: null });
  t.match(n, { voiceUrl, voiceMethod: 'POST', statusCallback: statusUrl, statusCallbackMethod: 'POST', voiceApplicationSid: '' });
  const [update] = updatesOf(n.sid);
  t.equal(
    update.rawBody,
    new URLSearchParams({ VoiceUrl: voiceUrl, VoiceMethod: 'POST', StatusCallback: statusUrl, StatusCallbackMethod: 'POST', VoiceApplicationSid: '' }).toString(),
    'the documented form fields, nothing else',
  );
  t.equal(update.headers['content-type'], 'application/x-www-form-urlencoded');

  // What Twilio would now do on a call to the number: POST to its VoiceUrl.
  const call = await sendIncomingCall(p.account, n.voiceUrl, { from: '+14155550111', to: e164 });
  t.equal(call.status, 200);
  t.match(call.body, /<Connect><Stream url="/, 'the number answers with the agent');
  await del(res.json().id);
});

t.test('unbinding restores what was there; rebinding and deleting do the same', async (t) => {
  const e164 = nextNumber();
  const n = fake.addNumber(p.account.sid, e164, { ...OLD, voiceApplicationSid: `AP${'2'.repeat(32)}` });
  const id = (await add({ e164, outbound_enabled: true, agent_id: p.agentId })).json().id as string;
  t.equal(n.voiceUrl, voiceUrl);

  const unbound = await patch(id, { agent_id: null });
  t.equal(unbound.statusCode, 200);
  t.match(unbound.json(), { agent_id: null, carrier_configured: false, carrier_error: null, voice_url: voiceUrl });
  t.match(n, { ...OLD, voiceApplicationSid: `AP${'2'.repeat(32)}` }, 'the previous settings, application included');

  const before = updatesOf(n.sid).length;
  t.equal((await patch(id, { outbound_enabled: false })).statusCode, 200);
  t.equal(updatesOf(n.sid).length, before, 'a change that is not a binding does not touch the carrier');

  t.match((await patch(id, { agent_id: p.agentId })).json(), { carrier_configured: true });
  t.equal(n.voiceUrl, voiceUrl);
  const deleted = await del(id);
  t.equal(deleted.statusCode, 200);
  t.match(deleted.json(), { carrier_configured: false, carrier_error: null });
  t.match(n, OLD, 'deleting a bound number restores it');
});

t.test('a number re-pointed at Twilio since binding is not touched on unbind', async (t) => {
  const e164 = nextNumber();
  const n = fake.addNumber(p.account.sid, e164, OLD);
  const id = (await add({ e164, outbound_enabled: false, agent_id: p.agentId })).json().id as string;
  n.voiceUrl = 'https://someone-else.example.com/voice';
  const before = updatesOf(n.sid).length;
  t.match((await patch(id, { agent_id: null })).json(), { carrier_configured: false, carrier_error: null });
  t.equal(updatesOf(n.sid).length, before, 'no update sent');
  t.equal(n.voiceUrl, 'https://someone-else.example.com/voice');
  await del(id);
});

t.test('failures stay on the record; sync applies the configuration again', async (t) => {
  const e164 = nextNumber();
  const created = await add({ e164, outbound_enabled: false, agent_id: p.agentId });
  t.equal(created.statusCode, 201, 'the number is added even though Twilio does not have it');
  t.match(created.json(), { carrier_configured: false, carrier_error: /not a number of this Twilio account/ });
  const id = created.json().id as string;

  const n = fake.addNumber(p.account.sid, e164, OLD);
  fake.override({ status: 500, body: { code: 20500, message: 'Internal Server Error', more_info: 'https://www.twilio.com/docs/errors/20500', status: 500 } });
  const failed = await sync(id);
  t.equal(failed.statusCode, 200);
  t.match(failed.json(), { carrier_configured: false, carrier_error: /HTTP 500/ });
  t.equal(n.voiceUrl, OLD.voiceUrl);

  const ok = await sync(id);
  t.match(ok.json(), { carrier_configured: true, carrier_error: null });
  t.equal(n.voiceUrl, voiceUrl);
  const got = await h.app.inject({ method: 'GET', url: `${numbersUrl(p)}/${id}`, headers: p.tenant.bearer });
  t.match(got.json(), { carrier_configured: true, carrier_error: null, voice_url: voiceUrl });

  // Restoring fails: the error is kept, and the saved settings stay for the next sync.
  fake.override({ status: 503, body: { code: 20503, message: 'Service Unavailable', more_info: '', status: 503 } });
  t.match((await patch(id, { agent_id: null })).json(), { carrier_configured: true, carrier_error: /could not restore.*HTTP 503/ });
  t.equal(n.voiceUrl, voiceUrl);
  t.match((await sync(id)).json(), { carrier_configured: false, carrier_error: null });
  t.match(n, OLD);
  await del(id);
});

t.test('an unverified carrier: nothing is asked of Twilio and the record says why', async (t) => {
  const res = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${p.tenant.projectId}/carriers`,
    headers: p.tenant.bearer,
    payload: { kind: 'twilio', label: 'unverified', credentials: { account_sid: p.account.sid, auth_token: p.account.token }, base_url: fake.baseUrl },
  });
  const carrierId = res.json().id as string;
  const count = fake.requests.length;
  const n = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${p.tenant.projectId}/carriers/${carrierId}/numbers`,
    headers: p.tenant.bearer,
    payload: { e164: nextNumber(), outbound_enabled: false, agent_id: p.agentId },
  });
  t.equal(n.statusCode, 201);
  t.match(n.json(), { carrier_configured: false, carrier_error: /not verified/ });
  t.equal(fake.requests.length, count);
  const listing = await h.app.inject({ method: 'GET', url: `/console/v2/projects/${p.tenant.projectId}/carriers/${carrierId}/incoming-numbers`, headers: p.tenant.bearer });
  t.equal(listing.statusCode, 503);
  t.same(listing.json(), { detail: 'carrier connection unavailable' });
});

t.test('incoming-numbers lists the account page by page and names the imported ones', async (t) => {
  const q = await phoneTenant(bed);
  const extra = [nextNumber(), nextNumber(), nextNumber()].map((e) => fake.addNumber(q.account.sid, e));
  const imported = (await add({ e164: extra[1].phoneNumber, outbound_enabled: true }, q)).json().id as string;
  const url = `/console/v2/projects/${q.tenant.projectId}/carriers/${q.carrierId}/incoming-numbers`;
  const first = await h.app.inject({ method: 'GET', url: `${url}?page_size=2`, headers: q.tenant.bearer });
  t.equal(first.statusCode, 200);
  const page1 = first.json();
  t.equal(page1.numbers.length, 2);
  t.type(page1.next_page_token, 'string');
  const second = (await h.app.inject({ method: 'GET', url: `${url}?page_size=2&page_token=${page1.next_page_token}`, headers: q.tenant.bearer })).json();
  t.equal(second.next_page_token, null);
  const all = [...page1.numbers, ...second.numbers];
  t.same(all.map((n: { e164: string }) => n.e164), extra.map((n) => n.phoneNumber));
  t.same(all.map((n: { ref: string }) => n.ref), extra.map((n) => n.sid));
  t.same(all.map((n: { number_id: string | null }) => n.number_id), [null, imported, null]);
  t.match(all[0], { voice_capable: true, voice_url: null });
  const listCall = fake.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/IncomingPhoneNumbers.json')).at(-1)!;
  t.equal(listCall.headers.authorization, `Basic ${Buffer.from(`${q.account.sid}:${q.account.token}`).toString('base64')}`);

  for (const token of ['%2F..%2Fsecret', Buffer.from('Foo=1').toString('base64url')]) {
    const bad = await h.app.inject({ method: 'GET', url: `${url}?page_token=${token}`, headers: q.tenant.bearer });
    t.equal(bad.statusCode, 422, token);
    t.same(bad.json().detail[0].loc, ['query', 'page_token']);
  }
  t.equal((await h.app.inject({ method: 'GET', url: `${url}?page_size=0`, headers: q.tenant.bearer })).statusCode, 422);
  const other = await h.app.inject({ method: 'GET', url, headers: p.tenant.bearer });
  t.equal(other.statusCode, 404, "another owner's carrier");
});

t.test('the new routes and the Twilio callbacks are in /openapi.json', async (t) => {
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const paths = doc.paths as Record<string, Record<string, { security?: unknown[] }>>;
  t.ok(paths['/console/v2/projects/{project_id}/carriers/{carrier_id}/numbers/{number_id}/sync']?.post);
  t.ok(paths['/console/v2/projects/{project_id}/carriers/{carrier_id}/incoming-numbers']?.get);
  for (const kind of ['voice', 'status', 'recording']) {
    const op = paths[`/v2/carriers/twilio/{carrier_id}/${kind}`]?.post;
    t.ok(op, kind);
    t.same(op?.security, [], `${kind} is public (signed by Twilio)`);
  }
});
