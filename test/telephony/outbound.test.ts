import t from 'tap';
import { dialQueue } from '../../src/telephony/dial-queue.js';
import { MINUTE_NANO } from '../sessions/fixtures.js';
import { nextNumber, phoneTenant, placeOutbound, sessionRow, startBed } from './helpers.js';

// POST /v2/voice/sessions/outbound and its console twin: validation, admission (the same as a
// media session's), the dial job it queues, and Idempotency-Key (contract §8).

const bed = await startBed();
const { h } = bed;
t.teardown(bed.close);
const p = await phoneTenant(bed);

const wallet = async (projectId: string) => (await h.ctx.sql`select balance_nano_usd, held_nano_usd from wallets where project_id = ${projectId}`)[0];

t.test('202: a queued call with the session, duplicate false, and one dial job carrying only the session id', async (t) => {
  const res = await placeOutbound(bed, p, { metadata: { crm: 'x1' }, max_duration_seconds: 90 });
  t.equal(res.statusCode, 202);
  const body = res.json();
  t.same(Object.keys(body).sort(), ['duplicate', 'session']);
  t.equal(body.duplicate, false);
  t.match(body.session, { status: 'created', direction: 'outbound', sample_rate_in: 8000, sample_rate_out: 8000, max_duration_seconds: 90, metadata: { crm: 'x1' }, recording_ref: null });
  t.notOk('from' in body.session || 'to' in body.session, 'numbers are not part of VoiceSessionInfo');
  const row = await sessionRow(h, body.session.id);
  t.match(row, { carrier_id: p.carrierId, from_e164: p.from, to_e164: '+14155559999', carrier_call_sid: null, dial_started_at: null, token_hash: null });
  t.ok(row.token_expires_at > new Date(Date.now() + 150_000), 'the connect window covers queue, ring and stream');
  const job = await dialQueue(h.ctx).getJob(body.session.id);
  t.ok(job, 'jobId = session id');
  t.same(job!.data, { sessionId: body.session.id }, 'no numbers, no credentials in the job');
  const raw = JSON.stringify(await h.ctx.redis.hgetall(`${h.ctx.redisPrefix}{voice}:bull:outbound-dials:${body.session.id}`));
  t.notOk(raw.includes(p.account.token), 'the auth token is nowhere in Redis');
});

t.test('console twin answers the same shape', async (t) => {
  const res = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${p.tenant.projectId}/voice/sessions/outbound`,
    headers: p.tenant.bearer,
    payload: { agent_id: p.agentId, from: p.from, to: '+442071838750' },
  });
  t.equal(res.statusCode, 202);
  t.match(res.json(), { duplicate: false, session: { direction: 'outbound', project_id: p.tenant.projectId } });
});

t.test('422: to must be E.164; from must be an outbound number of the project; unknown fields', async (t) => {
  for (const to of ['4155559999', '+0415555', '+1 415 555 9999', '', '+1415555999912345']) {
    const res = await placeOutbound(bed, p, { to });
    t.equal(res.statusCode, 422, `to ${to}`);
    t.same(res.json().detail[0].loc, ['body', 'to']);
  }
  const other = await phoneTenant(bed);
  for (const from of ['+19999999999', other.from, 'abc']) {
    const res = await placeOutbound(bed, p, { from });
    t.equal(res.statusCode, 422, `from ${from}`);
    t.same(res.json().detail, [{ loc: ['body', 'from'], msg: 'must be a number of the project with outbound calls enabled', type: 'value_error' }]);
  }
  const inboundOnly = nextNumber();
  await h.app.inject({ method: 'POST', url: `/console/v2/projects/${p.tenant.projectId}/carriers/${p.carrierId}/numbers`, headers: p.tenant.bearer, payload: { e164: inboundOnly, outbound_enabled: false } });
  t.same((await placeOutbound(bed, p, { from: inboundOnly })).json().detail[0].loc, ['body', 'from'], 'outbound_enabled false');
  t.same((await placeOutbound(bed, p, { sample_rate_in: 8000 })).json().detail[0], { loc: ['body', 'sample_rate_in'], msg: 'unknown field', type: 'extra_forbidden' });
  t.same((await placeOutbound(bed, p, { from: undefined })).json().detail[0], { loc: ['body', 'from'], msg: 'field required', type: 'missing' });
});

t.test('admission: 404 agent, 409 inactive, 503 carrier, 402 wallet, 429 slots — nothing held on refusal', async (t) => {
  t.equal((await placeOutbound(bed, p, { agent_id: '00000000-0000-4000-8000-000000000000' })).statusCode, 404);

  const inactive = await phoneTenant(bed, { agentActive: false });
  t.equal((await placeOutbound(bed, inactive)).statusCode, 409);

  const unverified = await phoneTenant(bed);
  await h.ctx.sql`update carriers set status = 'invalid' where id = ${unverified.carrierId}`;
  const down = await placeOutbound(bed, unverified);
  t.equal(down.statusCode, 503);
  t.same(down.json(), { detail: 'carrier connection unavailable' });

  const poor = await phoneTenant(bed, { wallet: MINUTE_NANO });
  const broke = await placeOutbound(bed, poor);
  t.equal(broke.statusCode, 402, 'the 120 s agent cap needs 2 minutes of hold');
  t.equal((await wallet(poor.tenant.projectId)).held_nano_usd, 0n);

  const busy = await phoneTenant(bed, { maxConcurrent: 1 });
  t.equal((await placeOutbound(bed, busy)).statusCode, 202);
  const full = await placeOutbound(bed, busy);
  t.equal(full.statusCode, 429);
  t.same(full.json(), { detail: 'concurrency limit reached' });
  t.ok(Number(full.headers['retry-after']) >= 1);
});

t.test('Idempotency-Key: a repeat returns the first session with duplicate true, even when admission would now refuse', async (t) => {
  const q = await phoneTenant(bed, { maxConcurrent: 1 });
  const key = { 'idempotency-key': 'order-7781/call-1' };
  const first = await placeOutbound(bed, q, { metadata: { a: 1, b: [1, 2] } }, key);
  t.equal(first.statusCode, 202);
  // Same body with keys in another order: the canonical body is the same.
  const again = await h.app.inject({
    method: 'POST',
    url: '/v2/voice/sessions/outbound',
    headers: { ...q.tenant.machine, ...key },
    payload: { metadata: { b: [1, 2], a: 1 }, to: '+14155559999', from: q.from, agent_id: q.agentId },
  });
  t.equal(again.statusCode, 202, 'not 429 although the only slot is taken');
  t.equal(again.json().duplicate, true);
  t.equal(again.json().session.id, first.json().session.id);
  const viaConsole = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${q.tenant.projectId}/voice/sessions/outbound`,
    headers: { ...q.tenant.bearer, ...key },
    payload: { agent_id: q.agentId, from: q.from, to: '+14155559999', metadata: { a: 1, b: [1, 2] } },
  });
  t.equal(viaConsole.json().session.id, first.json().session.id, 'keys belong to the project, whichever door');

  const changed = await placeOutbound(bed, q, { metadata: { a: 2 } }, key);
  t.equal(changed.statusCode, 422);
  t.same(changed.json().detail, [{ loc: ['header', 'Idempotency-Key'], msg: 'this key was already used with a different request body', type: 'idempotency_conflict' }]);

  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${q.tenant.projectId}`;
  t.equal(n, 1, 'one session');
  t.equal((await wallet(q.tenant.projectId)).held_nano_usd, 2n * MINUTE_NANO, 'one hold');

  // Another project may use the same key.
  const r = await phoneTenant(bed);
  const theirs = await placeOutbound(bed, r, {}, key);
  t.equal(theirs.json().duplicate, false);
});

t.test('Idempotency-Key: 422 at loc ["header","Idempotency-Key"] unless 1-255 printable ASCII', async (t) => {
  for (const bad of ['', 'x'.repeat(256), 'tab\there', 'é-key']) {
    const res = await placeOutbound(bed, p, {}, { 'idempotency-key': bad });
    t.equal(res.statusCode, 422, JSON.stringify(bad));
    t.same(res.json().detail[0].loc, ['header', 'Idempotency-Key']);
  }
  t.equal((await placeOutbound(bed, p, {}, { 'idempotency-key': 'x'.repeat(255) })).statusCode, 202, '255 is fine');
  t.equal((await placeOutbound(bed, p, {}, { 'idempotency-key': '~ !"#' })).statusCode, 202, 'printable punctuation is fine');
});

t.test('Idempotency-Key: 20 concurrent duplicates resolve to one session and one hold', async (t) => {
  const q = await phoneTenant(bed, { maxConcurrent: 50 });
  const key = { 'idempotency-key': 'race-1' };
  const results = await Promise.all(Array.from({ length: 20 }, () => placeOutbound(bed, q, {}, key)));
  t.same([...new Set(results.map((r) => r.statusCode))], [202]);
  const ids = new Set(results.map((r) => r.json().session.id));
  t.equal(ids.size, 1, 'one session id');
  t.equal(results.filter((r) => r.json().duplicate === false).length, 1, 'exactly one answer is the original');
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from voice_sessions where project_id = ${q.tenant.projectId}`;
  t.equal(n, 1);
  t.equal((await wallet(q.tenant.projectId)).held_nano_usd, 2n * MINUTE_NANO);

  // Concurrent duplicates with different bodies: one session, the others 202 duplicates or 422.
  const mixed = await Promise.all(Array.from({ length: 10 }, (_, i) => placeOutbound(bed, q, { metadata: { i: i % 2 } }, { 'idempotency-key': 'race-2' })));
  const created = mixed.filter((r) => r.statusCode === 202 && r.json().duplicate === false);
  t.equal(created.length, 1);
  const winner = created[0].json().session.metadata.i;
  for (const r of mixed) {
    if (r.statusCode === 202) t.equal(r.json().session.id, created[0].json().session.id);
    else t.equal(r.statusCode, 422);
  }
  t.equal(mixed.filter((r) => r.statusCode === 422).length, 5, `the five with i != ${winner} are refused`);
});

t.test('Idempotency-Key is remembered 24 h, then a new call is made', async (t) => {
  const q = await phoneTenant(bed);
  const key = { 'idempotency-key': 'day-old' };
  const first = (await placeOutbound(bed, q, {}, key)).json();
  await h.ctx.sql`update idempotency_keys set expires_at = now() - interval '1 second' where key = 'day-old'`;
  const later = (await placeOutbound(bed, q, {}, key)).json();
  t.equal(later.duplicate, false);
  t.not(later.session.id, first.session.id);
  const [{ n }] = await h.ctx.sql`select count(*)::int as n from idempotency_keys where key = 'day-old'`;
  t.equal(n, 1, 'the expired row was replaced');
});

t.test('a refused first request leaves no key behind: its retry is admitted normally', async (t) => {
  const q = await phoneTenant(bed, { wallet: 1n });
  const key = { 'idempotency-key': 'retry-after-topup' };
  t.equal((await placeOutbound(bed, q, {}, key)).statusCode, 402);
  await h.ctx.sql`update wallets set balance_nano_usd = ${(100n * MINUTE_NANO).toString()} where project_id = ${q.tenant.projectId}`;
  const ok = await placeOutbound(bed, q, {}, key);
  t.equal(ok.statusCode, 202);
  t.equal(ok.json().duplicate, false);
});
