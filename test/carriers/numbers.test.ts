import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { insertAgent, projectRevision } from './helpers.js';
import { findInboundCandidates, findProjectNumber } from '../../src/db/repos/carrier-numbers.js';

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);
const carriersOf = (projectId: string) => `/console/v2/projects/${projectId}/carriers`;
const SID_A = `AC${'a'.repeat(32)}`;
const SID_B = `AC${'b'.repeat(32)}`;

async function newCarrier(tenant = a, accountSid = SID_A): Promise<string> {
  const res = await h.app.inject({
    method: 'POST',
    url: carriersOf(tenant.projectId),
    headers: tenant.bearer,
    payload: { kind: 'twilio', label: 'line', credentials: { account_sid: accountSid, auth_token: 'c'.repeat(32) } },
  });
  return res.json().id;
}

const carrier = await newCarrier();
const numbers = `${carriersOf(a.projectId)}/${carrier}/numbers`;
const agent = await insertAgent(h, a.projectId);
const foreignAgent = await insertAgent(h, b.projectId);
const add = (payload: unknown, url = numbers, headers = a.bearer) => h.app.inject({ method: 'POST', url, headers, payload: payload as object });

t.test('add, list, get: shape and project revision', async (t) => {
  const rev = await projectRevision(h, a.projectId);
  const res = await add({ e164: '+14155550100', outbound_enabled: true, agent_id: agent });
  t.equal(res.statusCode, 201);
  const n = res.json();
  t.same(Object.keys(n).sort(), ['agent_id', 'carrier_configured', 'carrier_error', 'carrier_id', 'created_at', 'e164', 'id', 'outbound_enabled', 'project_id', 'updated_at', 'voice_url']);
  t.match(n, { carrier_id: carrier, project_id: a.projectId, e164: '+14155550100', outbound_enabled: true, agent_id: agent });
  t.equal(await projectRevision(h, a.projectId), rev + 1);

  const plain = await add({ e164: '+442071838750', outbound_enabled: false });
  t.equal(plain.statusCode, 201);
  t.equal(plain.json().agent_id, null);

  const list = await h.app.inject({ method: 'GET', url: numbers, headers: a.bearer });
  t.equal(list.statusCode, 200);
  t.same(list.json().map((x: { e164: string }) => x.e164), ['+442071838750', '+14155550100'], 'newest first');
  const one = await h.app.inject({ method: 'GET', url: `${numbers}/${n.id}`, headers: a.bearer });
  t.same(one.json(), n);
});

t.test('422: E.164 only, unknown fields, required fields, agent of the project only', async (t) => {
  for (const e164 of ['4155550100', '+04155550100', '+1415', '+1415555010012345', '+1 415 555 0100', '+1415555010a', '']) {
    const res = await add({ e164, outbound_enabled: true });
    t.equal(res.statusCode, 422, e164);
    t.same(res.json().detail[0].loc, ['body', 'e164'], e164);
  }
  t.same((await add({ e164: '+14155550111' })).json().detail, [{ loc: ['body', 'outbound_enabled'], msg: 'field required', type: 'missing' }]);
  t.same((await add({ e164: '+14155550111', outbound_enabled: 'yes' })).json().detail[0].loc, ['body', 'outbound_enabled']);
  t.same((await add({ e164: '+14155550111', outbound_enabled: true, carrier_id: carrier })).json().detail[0], { loc: ['body', 'carrier_id'], msg: 'unknown field', type: 'extra_forbidden' });
  t.same((await add({ e164: '+14155550111', outbound_enabled: true, agent_id: 'nope' })).json().detail[0].loc, ['body', 'agent_id']);
  for (const id of [foreignAgent, '00000000-0000-4000-8000-000000000000']) {
    const res = await add({ e164: '+14155550111', outbound_enabled: true, agent_id: id });
    t.equal(res.statusCode, 422);
    t.same(res.json().detail, [{ loc: ['body', 'agent_id'], msg: 'agent not found in this project', type: 'value_error' }]);
  }
  const none = await h.ctx.sql`select 1 from carrier_numbers where e164 = '+14155550111'`;
  t.equal(none.length, 0, 'nothing was stored');
});

t.test('a number is live once per project; another project may hold it; deleted numbers come back', async (t) => {
  const second = await newCarrier();
  const dup = await add({ e164: '+14155550100', outbound_enabled: false }, `${carriersOf(a.projectId)}/${second}/numbers`);
  t.equal(dup.statusCode, 409);
  t.same(dup.json(), { detail: 'this number is already on a carrier of the project' });
  const same = await add({ e164: '+14155550100', outbound_enabled: false });
  t.equal(same.statusCode, 409, 'on the same carrier too');

  const bCarrier = await newCarrier(b, SID_B);
  const elsewhere = await add({ e164: '+14155550100', outbound_enabled: true }, `${carriersOf(b.projectId)}/${bCarrier}/numbers`, b.bearer);
  t.equal(elsewhere.statusCode, 201, 'another project');

  const temp = (await add({ e164: '+14155550123', outbound_enabled: true })).json();
  t.equal((await h.app.inject({ method: 'DELETE', url: `${numbers}/${temp.id}`, headers: a.bearer })).statusCode, 200);
  const again = await add({ e164: '+14155550123', outbound_enabled: true }, `${carriersOf(a.projectId)}/${second}/numbers`);
  t.equal(again.statusCode, 201, 'a deleted number can be added again');
  await h.app.inject({ method: 'DELETE', url: `${carriersOf(a.projectId)}/${second}/numbers/${again.json().id}`, headers: a.bearer });
});

t.test('concurrent adds of one number: exactly one wins', async (t) => {
  const results = await Promise.all(Array.from({ length: 6 }, () => add({ e164: '+14155550777', outbound_enabled: true })));
  t.same(results.map((r) => r.statusCode).sort(), [201, 409, 409, 409, 409, 409]);
});

t.test('patch: outbound_enabled and agent binding; revision bumps', async (t) => {
  const n = (await add({ e164: '+14155550200', outbound_enabled: false })).json();
  const rev = await projectRevision(h, a.projectId);
  const on = await h.app.inject({ method: 'PATCH', url: `${numbers}/${n.id}`, headers: a.bearer, payload: { outbound_enabled: true } });
  t.equal(on.statusCode, 200);
  t.match(on.json(), { outbound_enabled: true, agent_id: null });
  const bound = await h.app.inject({ method: 'PATCH', url: `${numbers}/${n.id}`, headers: a.bearer, payload: { agent_id: agent } });
  t.match(bound.json(), { outbound_enabled: true, agent_id: agent });
  const unbound = await h.app.inject({ method: 'PATCH', url: `${numbers}/${n.id}`, headers: a.bearer, payload: { agent_id: null } });
  t.match(unbound.json(), { outbound_enabled: true, agent_id: null });
  t.equal(await projectRevision(h, a.projectId), rev + 3);

  const foreign = await h.app.inject({ method: 'PATCH', url: `${numbers}/${n.id}`, headers: a.bearer, payload: { agent_id: foreignAgent } });
  t.equal(foreign.statusCode, 422);
  t.same(foreign.json().detail[0].loc, ['body', 'agent_id']);
  const empty = await h.app.inject({ method: 'PATCH', url: `${numbers}/${n.id}`, headers: a.bearer, payload: {} });
  t.same(empty.json().detail, [{ loc: ['body'], msg: 'send at least one of outbound_enabled, agent_id', type: 'value_error' }]);
  const e164 = await h.app.inject({ method: 'PATCH', url: `${numbers}/${n.id}`, headers: a.bearer, payload: { e164: '+14155550201' } });
  t.same(e164.json().detail[0], { loc: ['body', 'e164'], msg: 'unknown field', type: 'extra_forbidden' }, 'the number itself cannot change');
});

t.test('another owner, another carrier, unknown ids: 404', async (t) => {
  const n = (await add({ e164: '+14155550300', outbound_enabled: true })).json();
  for (const [method, url] of [['GET', numbers], ['POST', numbers], ['GET', `${numbers}/${n.id}`], ['PATCH', `${numbers}/${n.id}`], ['DELETE', `${numbers}/${n.id}`]] as const) {
    const res = await h.app.inject({ method, url, headers: b.bearer, payload: method === 'POST' ? { e164: '+14155550301', outbound_enabled: true } : method === 'PATCH' ? { outbound_enabled: false } : undefined });
    t.equal(res.statusCode, 404, `${method} ${url}`);
    t.same(res.json(), { detail: 'project not found' });
  }
  const bCarrier = await newCarrier(b, SID_B);
  const cross = await h.app.inject({ method: 'GET', url: `${carriersOf(b.projectId)}/${bCarrier}/numbers/${n.id}`, headers: b.bearer });
  t.same(cross.json(), { detail: 'carrier number not found' }, "a's number under b's carrier");
  const aCarrierViaB = await h.app.inject({ method: 'GET', url: `${carriersOf(b.projectId)}/${carrier}/numbers`, headers: b.bearer });
  t.same(aCarrierViaB.json(), { detail: 'carrier not found' }, "a's carrier under b's project");
  const second = await newCarrier();
  const wrongCarrier = await h.app.inject({ method: 'GET', url: `${carriersOf(a.projectId)}/${second}/numbers/${n.id}`, headers: a.bearer });
  t.equal(wrongCarrier.statusCode, 404, 'a number is addressed through its own carrier');
  t.same(wrongCarrier.json(), { detail: 'carrier number not found' });
  t.equal((await h.app.inject({ method: 'GET', url: numbers, headers: a.machine })).statusCode, 401, 'console door only');
});

t.test('a carrier with numbers cannot be deleted (409); without them it can', async (t) => {
  const c = await newCarrier();
  const url = `${carriersOf(a.projectId)}/${c}`;
  const n1 = (await add({ e164: '+14155550400', outbound_enabled: true }, `${url}/numbers`)).json();
  const refused = await h.app.inject({ method: 'DELETE', url, headers: a.bearer });
  t.equal(refused.statusCode, 409);
  t.same(refused.json(), { detail: 'carrier has 1 number; delete it first' });
  const n2 = (await add({ e164: '+14155550401', outbound_enabled: true }, `${url}/numbers`)).json();
  t.same((await h.app.inject({ method: 'DELETE', url, headers: a.bearer })).json(), { detail: 'carrier has 2 numbers; delete them first' });
  for (const n of [n1, n2]) t.equal((await h.app.inject({ method: 'DELETE', url: `${url}/numbers/${n.id}`, headers: a.bearer })).statusCode, 200);
  t.equal((await h.app.inject({ method: 'GET', url: `${url}/numbers/${n1.id}`, headers: a.bearer })).statusCode, 404, 'deleted number');
  t.equal((await h.app.inject({ method: 'DELETE', url, headers: a.bearer })).statusCode, 200);
  const after = await add({ e164: '+14155550402', outbound_enabled: true }, `${url}/numbers`);
  t.equal(after.statusCode, 404, 'no numbers on a deleted carrier');
  t.same(after.json(), { detail: 'carrier not found' });
});

t.test('lookups for outbound `from` and inbound webhooks', async (t) => {
  const found = await findProjectNumber(h.ctx.sql, a.projectId, '+14155550100');
  t.ok(found);
  t.match(found!.number, { e164: '+14155550100', outbound_enabled: true, agent_id: agent, carrier_id: carrier });
  t.match(found!.carrier, { id: carrier, account_sid: SID_A, status: 'unverified', kind: 'twilio' });
  t.type(found!.carrier.created_at, Date);
  t.notOk('credentials_sealed' in found!.carrier);
  t.equal(await findProjectNumber(h.ctx.sql, a.projectId, '+19999999999'), null);

  const inbound = await findInboundCandidates(h.ctx.sql, SID_A, '+14155550100');
  t.same(inbound.map((c) => c.number.project_id), [a.projectId]);
  t.same((await findInboundCandidates(h.ctx.sql, SID_B, '+14155550100')).map((c) => c.number.project_id), [b.projectId], 'the account tells the projects apart');
  t.same(await findInboundCandidates(h.ctx.sql, `AC${'f'.repeat(32)}`, '+14155550100'), []);

  // Another project claims the same Twilio account and number: both are candidates, the verified one first.
  const claim = await newCarrier(b, SID_A);
  await add({ e164: '+14155550100', outbound_enabled: false }, `${carriersOf(b.projectId)}/${claim}/numbers`, b.bearer).then((r) => t.equal(r.statusCode, 409, 'b already has this number on SID_B'));
  await add({ e164: '+14155550999', outbound_enabled: false }, `${carriersOf(b.projectId)}/${claim}/numbers`, b.bearer);
  await add({ e164: '+14155550999', outbound_enabled: false });
  await h.ctx.sql`update carriers set status = 'verified' where id = ${carrier}`;
  const both = await findInboundCandidates(h.ctx.sql, SID_A, '+14155550999');
  t.same(both.map((c) => [c.number.project_id, c.carrier.status]), [[a.projectId, 'verified'], [b.projectId, 'unverified']]);
});
