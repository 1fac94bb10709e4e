import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgent, fund } from '../sessions/fixtures.js';
import { PER_ADDRESS_PER_MINUTE } from '../../src/control/routes/browser-sessions/index.js';

const h = await startHarness();
t.teardown(h.close);
const tenant = await createTenant(h);
const { agentId } = await createAgent(h, tenant.projectId, { variables: [{ name: 'name', required: true }] });
const other = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 1_000_000_000n);

async function mint(body: object) {
  const res = await h.app.inject({ method: 'POST', url: `/console/v2/projects/${tenant.projectId}/publishable-keys`, headers: tenant.bearer, payload: body });
  return res.json().key as string;
}
const ORIGIN = 'https://shop.example.com';
const key = await mint({ name: 'shop', origins: [ORIGIN], agent_ids: [agentId] });
let address = 0;
/** Each call comes from its own client address unless told otherwise, so the per-address limit stays out of the way. */
const start = (headers: Record<string, string>, payload: object, remoteAddress = `10.0.0.${++address}`) =>
  h.app.inject({ method: 'POST', url: '/v2/browser/sessions', headers, payload, remoteAddress });

t.test('a listed origin starts a web session on an allowed agent', async (t) => {
  const res = await start({ 'x-publishable-key': key, origin: ORIGIN }, { agent_id: agentId, variables: { name: 'Ada' } });
  t.equal(res.statusCode, 201);
  const body = res.json();
  t.equal(body.session.direction, 'web');
  t.equal(body.session.agent_id, agentId);
  t.equal(body.expires_in_seconds, 15, "the key's connect window (contract §11)");
  t.match(body.ws_url, /\/v2\/voice\/sessions\/[0-9a-f-]{36}\/stream\?token=/);
  t.ok(res.headers['x-ratelimit-limit']);
});

t.test('refusals: key, origin, agent, body', async (t) => {
  const missing = await start({ origin: ORIGIN }, { agent_id: agentId });
  t.equal(missing.statusCode, 401);
  t.same(missing.json(), { detail: 'missing publishable key' });
  const bogus = await start({ 'x-publishable-key': `pk_${'a'.repeat(43)}`, origin: ORIGIN }, { agent_id: agentId });
  t.equal(bogus.statusCode, 401);
  t.same(bogus.json(), { detail: 'invalid publishable key' });
  const machineKey = await start({ 'x-publishable-key': tenant.apiKey, origin: ORIGIN }, { agent_id: agentId });
  t.equal(machineKey.statusCode, 401, 'an API key is not a publishable key');
  for (const origin of ['https://evil.example.com', 'http://shop.example.com', 'https://shop.example.com:8443', '']) {
    const res = await start({ 'x-publishable-key': key, ...(origin ? { origin } : {}) }, { agent_id: agentId });
    t.equal(res.statusCode, 403, `origin ${origin || '(none)'}`);
  }
  const noVars = await start({ 'x-publishable-key': key, origin: ORIGIN }, { agent_id: agentId });
  t.equal(noVars.statusCode, 422);
  t.same(noVars.json().detail[0].loc, ['body', 'variables', 'name']);
  const notListed = await start({ 'x-publishable-key': key, origin: ORIGIN }, { agent_id: other.agentId });
  t.equal(notListed.statusCode, 404, 'an agent outside agent_ids is not found');
  const extra = await start({ 'x-publishable-key': key, origin: ORIGIN }, { agent_id: agentId, max_duration_seconds: 5 });
  t.equal(extra.statusCode, 422, 'a browser cannot set call limits');
  t.same(extra.json().detail[0].loc, ['body', 'max_duration_seconds']);
});

t.test('per-address limit answers 429 with Retry-After', async (t) => {
  const key2 = await mint({ name: 'burst', origins: [ORIGIN], agent_ids: null });
  const statuses: number[] = [];
  let last;
  for (let i = 0; i < PER_ADDRESS_PER_MINUTE + 1; i++) {
    // An unknown agent answers 404 after the limit checks, so no session is admitted and no slot is used.
    last = await start({ 'x-publishable-key': key2, origin: ORIGIN }, { agent_id: '00000000-0000-4000-8000-000000000000' }, '192.0.2.77');
    statuses.push(last.statusCode);
  }
  t.same(statuses.slice(0, PER_ADDRESS_PER_MINUTE), Array(PER_ADDRESS_PER_MINUTE).fill(404));
  t.equal(statuses.at(-1), 429);
  t.ok(Number(last!.headers['retry-after']) >= 1);
});
