import t from 'tap';
import { ConflictError, ConsoleClient, NotFoundError, ValidationError, VoiceClient, toArray } from '../../packages/sdk/src/index.js';
import { PASSWORD } from '../helpers/fixtures.js';
import { nextNumber, phoneTenant, startBed } from '../telephony/helpers.js';

// Campaigns, outbound calls, carrier numbers and publishable keys through the SDK against the
// real service (Postgres, Redis) and a fake Twilio, with no scheduler dialling: creation with an
// idempotency key, row pages as an iterator, pause/resume/cancel and their 409, the number
// routes including sync, and the carrier's own paging of incoming numbers.

const bed = await startBed();
t.teardown(bed.close);
const p = await phoneTenant(bed);
const client = new VoiceClient({ baseUrl: bed.baseUrl, apiKey: p.tenant.apiKey });
const consoleClient = await ConsoleClient.login({ baseUrl: bed.baseUrl, email: p.tenant.email, password: PASSWORD });
const scope = consoleClient.project(p.tenant.projectId);
const callees = (n: number) => Array.from({ length: n }, (_, i) => ({ to: `+1212555${String(1000 + i)}` }));

t.test('campaigns: create once per idempotency key, read rows page by page, steer', async (t) => {
  const body = { name: 'spring', agent_id: p.agentId, from_numbers: [p.from], rows: callees(5), timezone: 'America/New_York' };
  const created = await client.campaigns.create(body, { idempotencyKey: 'sdk-campaign-1' });
  t.match(created, { name: 'spring', status: 'running', timezone: 'America/New_York', counters: { total: 5, queued: 5 } });
  const again = await client.campaigns.create(body, { idempotencyKey: 'sdk-campaign-1' });
  t.equal(again.id, created.id, 'a repeat with the same key answers the first campaign');

  const page = await client.campaigns.get(created.id, { limit: 2, offset: 1 });
  t.same(page.rows.map((r) => [r.index, r.to, r.state]), [
    [1, '+12125551001', 'queued'],
    [2, '+12125551002', 'queued'],
  ]);
  const rows = await toArray(client.campaigns.rows(created.id, {}, { pageSize: 2 }));
  t.same(rows.map((r) => r.index), [0, 1, 2, 3, 4], 'the iterator walks every page of rows');

  t.equal((await client.campaigns.pause(created.id)).status, 'paused');
  t.equal((await client.campaigns.pause(created.id)).status, 'paused', 'repeating a control is a no-op');
  t.same((await toArray(client.campaigns.list({ status: 'paused' }))).map((c) => c.id), [created.id]);
  t.same(await toArray(client.campaigns.list({ status: 'canceled' })), []);
  t.equal((await client.campaigns.resume(created.id)).status, 'running');
  const canceled = await client.campaigns.cancel(created.id);
  t.match(canceled, { status: 'canceled', counters: { canceled: 5, queued: 0 } });
  t.equal((await toArray(client.campaigns.rows(created.id, { state: 'canceled' }, { pageSize: 2 }))).length, 5);
  const refused = await client.campaigns.resume(created.id).catch((e: unknown) => e);
  t.ok(refused instanceof ConflictError && refused.detail === 'campaign is canceled', 'a canceled campaign answers 409');

  // The console door sees the same campaigns.
  t.same((await scope.campaigns.get(created.id)).counters.canceled, 5);
  t.equal((await toArray(scope.campaigns.list()))[0].id, created.id);

  const invalid = await client.campaigns.create({ ...body, timezone: 'Mars/Olympus' }).catch((e: unknown) => e);
  t.ok(invalid instanceof ValidationError);
  t.same((invalid as ValidationError).errors.map((e) => e.loc), [['body', 'timezone']]);
  const other = await phoneTenant(bed);
  const foreign = await new VoiceClient({ baseUrl: bed.baseUrl, apiKey: other.tenant.apiKey }).campaigns.get(created.id).catch((e: unknown) => e);
  t.ok(foreign instanceof NotFoundError, "another project's campaign is a NotFoundError");
});

t.test('outbound calls: a repeated idempotency key answers the first session', async (t) => {
  const body = { agent_id: p.agentId, from: p.from, to: '+14155559999' };
  const first = await client.sessions.createOutbound(body, { idempotencyKey: 'sdk-outbound-1' });
  const second = await client.sessions.createOutbound(body, { idempotencyKey: 'sdk-outbound-1' });
  t.equal(second.session.id, first.session.id);
  t.equal(first.session.direction, 'outbound');
});

t.test('carrier numbers: list, get, update, sync, delete; incoming numbers in carrier pages', async (t) => {
  const carriers = await toArray(scope.carriers.list());
  t.same(carriers.map((c) => c.id), [p.carrierId]);
  const numbers = scope.carriers.numbers(p.carrierId);
  const listed = await toArray(numbers.list());
  t.same(listed.map((n) => n.e164), [p.from], 'the tenant number');

  const extra = [nextNumber(), nextNumber(), nextNumber()];
  for (const e164 of extra) bed.fake.addNumber(p.account.sid, e164);
  const first = await scope.carriers.incomingNumbers(p.carrierId, { pageSize: 2 });
  t.equal(first.numbers.length, 2);
  t.type(first.next_page_token, 'string', 'a full page names the next one');
  const all = await toArray(scope.carriers.allIncomingNumbers(p.carrierId, { pageSize: 2 }));
  t.same(all.map((n) => n.e164).sort(), [...extra].sort(), 'following next_page_token reaches every number');

  const added = await numbers.create({ e164: extra[0], outbound_enabled: false });
  t.equal((await numbers.get(added.id)).e164, extra[0]);
  t.equal((await toArray(numbers.list())).length, 2);
  const bound = await numbers.update(added.id, { agent_id: p.agentId });
  t.equal(bound.agent_id, p.agentId);
  t.match(bed.fake.number(extra[0], p.account.sid)?.voiceUrl ?? '', /\/v2\/carriers\/twilio\//, 'binding set the voice URL at the carrier');
  t.equal((await numbers.sync(added.id)).id, added.id);
  const imported = await scope.carriers.incomingNumbers(p.carrierId, { pageSize: 100 });
  t.equal(imported.numbers.find((n) => n.e164 === extra[0])?.number_id, added.id, 'an imported number names its number_id');

  const busy = await scope.carriers.delete(p.carrierId).catch((e: unknown) => e);
  t.ok(busy instanceof ConflictError, 'a carrier with numbers cannot be deleted');
  t.equal((await numbers.delete(added.id)).id, added.id);
  const gone = await numbers.get(added.id).catch((e: unknown) => e);
  t.ok(gone instanceof NotFoundError);
});

t.test('publishable keys: update changes only the fields sent', async (t) => {
  const key = await scope.publishableKeys.create({ name: 'site', origins: ['https://shop.example.com'], agent_ids: [p.agentId] });
  const renamed = await scope.publishableKeys.update(key.id, { name: 'shop' });
  t.same([renamed.name, renamed.origins, renamed.agent_ids], ['shop', ['https://shop.example.com'], [p.agentId]]);
  const widened = await scope.publishableKeys.update(key.id, { origins: ['https://shop.example.com', 'https://www.example.com'] });
  t.same(widened.origins, ['https://shop.example.com', 'https://www.example.com']);
  const bad = await scope.publishableKeys.update(key.id, { origins: ['not a url'] }).catch((e: unknown) => e);
  t.ok(bad instanceof ValidationError);
});
