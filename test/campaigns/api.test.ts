import t from 'tap';
import { createAgent } from '../sessions/fixtures.js';
import { nextNumber, phoneTenant, startBed } from '../telephony/helpers.js';
import { callees, campaignAction, getCampaign, postCampaign } from './helpers.js';

// /v2/voice/campaigns and the console twin without a scheduler running: creation and its
// checks, the 4xx shapes, reads with counters and row pages, and the pause/resume/cancel rules.

const bed = await startBed();
const { h } = bed;
t.teardown(bed.close);
const p = await phoneTenant(bed);

const rows = (n: number) => callees(n).map((to) => ({ to }));

t.test('201: the campaign with its defaults and counters; GET pages its rows by index', async (t) => {
  const res = await postCampaign(bed, p, { rows: [{ to: '+12125550100', metadata: { crm: 'a1' } }, { to: '+12125550101', timezone: 'Europe/Paris' }, { to: '+12125550102' }] });
  t.equal(res.statusCode, 201, res.body);
  const c = res.json();
  t.match(c, {
    name: 'spring',
    agent_id: p.agentId,
    project_id: p.tenant.projectId,
    status: 'running',
    from_numbers: [p.from],
    max_concurrent_calls: 5,
    timezone: 'UTC',
    calling_windows: [],
    retry: { max_attempts: 3, min_spacing_seconds: 600, on: ['busy', 'no_answer'] },
    counters: { total: 3, queued: 3, in_progress: 0, retrying: 0, completed: 0, failed: 0, canceled: 0 },
    last_error: null,
    finished_at: null,
  });
  const detail = await getCampaign(bed, p, c.id, '?limit=2&offset=1');
  t.same(
    detail.rows.map((r: { index: number; to: string; timezone: string; state: string; results: unknown[] }) => [r.index, r.to, r.timezone, r.state, r.results.length]),
    [
      [1, '+12125550101', 'Europe/Paris', 'queued', 0],
      [2, '+12125550102', 'UTC', 'queued', 0],
    ],
  );
  t.same((await getCampaign(bed, p, c.id, '?limit=1')).rows[0].metadata, { crm: 'a1' });
  t.same((await getCampaign(bed, p, c.id, '?state=failed')).rows, []);
});

t.test('the console door: create, list (newest first, by status) and read', async (t) => {
  const base = `/console/v2/projects/${p.tenant.projectId}/voice/campaigns`;
  const created = await h.app.inject({ method: 'POST', url: base, headers: p.tenant.bearer, payload: { name: 'console', agent_id: p.agentId, from_numbers: [p.from], rows: rows(2) } });
  t.equal(created.statusCode, 201, created.body);
  const id = created.json().id as string;
  const list = await h.app.inject({ method: 'GET', url: base, headers: p.tenant.bearer });
  t.equal(list.json()[0].id, id);
  await campaignAction(bed, p, id, 'pause');
  const paused = await h.app.inject({ method: 'GET', url: `${base}?status=paused`, headers: p.tenant.bearer });
  t.same(paused.json().map((c: { id: string }) => c.id), [id]);
  const one = await h.app.inject({ method: 'GET', url: `${base}/${id}`, headers: p.tenant.bearer });
  t.equal(one.json().rows.length, 2);
  const other = await phoneTenant(bed);
  const foreign = await h.app.inject({ method: 'GET', url: `/v2/voice/campaigns/${id}`, headers: other.tenant.machine });
  t.equal(foreign.statusCode, 404, 'another project does not see it');
  t.same(foreign.json(), { detail: 'campaign not found' });
});

t.test('422 with loc for every malformed part', async (t) => {
  const cases: [Record<string, unknown>, (string | number)[]][] = [
    [{ rows: [] }, ['body', 'rows']],
    [{ rows: rows(10_001) }, ['body', 'rows']],
    [{ rows: [{ to: '+12125550100' }, { to: '+12125550101' }, { to: '+12125550102' }, { to: '2125550103' }] }, ['body', 'rows', 3, 'to']],
    [{ rows: rows(1), timezone: 'Mars/Olympus' }, ['body', 'timezone']],
    [{ rows: [{ to: '+12125550100', timezone: 'EST+5' }] }, ['body', 'rows', 0, 'timezone']],
    [{ rows: rows(1), calling_windows: [{ days: ['mon'], start: '17:00', end: '09:00' }] }, ['body', 'calling_windows', 0, 'end']],
    [{ rows: rows(1), calling_windows: [{ days: ['monday'], start: '09:00', end: '17:00' }] }, ['body', 'calling_windows', 0, 'days', 0]],
    [{ rows: rows(1), calling_windows: [{ days: ['mon'], start: '9:00', end: '17:00' }] }, ['body', 'calling_windows', 0, 'start']],
    [{ rows: rows(1), max_concurrent_calls: 0 }, ['body', 'max_concurrent_calls']],
    [{ rows: rows(1), max_concurrent_calls: 101 }, ['body', 'max_concurrent_calls']],
    [{ rows: rows(1), retry: { max_attempts: 11 } }, ['body', 'retry', 'max_attempts']],
    [{ rows: rows(1), retry: { on: ['failed'] } }, ['body', 'retry', 'on', 0]],
    [{ rows: rows(1), from_numbers: [] }, ['body', 'from_numbers']],
    [{ rows: rows(1), from_numbers: [p.from, p.from] }, ['body', 'from_numbers']],
    [{ rows: rows(1), agent_id: 'nope' }, ['body', 'agent_id']],
    [{ rows: rows(1), priority: 1 }, ['body', 'priority']],
  ];
  for (const [body, loc] of cases) {
    const res = await postCampaign(bed, p, body);
    t.equal(res.statusCode, 422, JSON.stringify(loc));
    t.same(res.json().detail[0].loc, loc, JSON.stringify(loc));
    t.type(res.json().detail[0].msg, 'string');
  }
  const other = await phoneTenant(bed);
  const inboundOnly = nextNumber();
  await h.app.inject({ method: 'POST', url: `/console/v2/projects/${p.tenant.projectId}/carriers/${p.carrierId}/numbers`, headers: p.tenant.bearer, payload: { e164: inboundOnly, outbound_enabled: false } });
  const from = await postCampaign(bed, p, { rows: rows(1), from_numbers: [p.from, other.from, inboundOnly] });
  t.same(
    from.json().detail,
    [1, 2].map((i) => ({ loc: ['body', 'from_numbers', i], msg: 'must be a number of the project with outbound calls enabled', type: 'value_error' })),
    'numbers of another project or not enabled for outbound',
  );
});

t.test('422: each row is checked against the variables the agent declares', async (t) => {
  const agent = await createAgent(h, p.tenant.projectId, { variables: [{ name: 'first_name', required: true }] });
  const res = await postCampaign(bed, p, {
    agent_id: agent.agentId,
    rows: [{ to: '+12125550100', variables: { first_name: 'Ada' } }, { to: '+12125550101' }, { to: '+12125550102', variables: { first_name: 'Bo', shoe: '9' } }],
  });
  t.equal(res.statusCode, 422);
  t.same(res.json().detail, [
    { loc: ['body', 'rows', 1, 'variables', 'first_name'], msg: 'field required', type: 'missing' },
    { loc: ['body', 'rows', 2, 'variables', 'shoe'], msg: 'variable is not declared by the agent', type: 'extra_forbidden' },
  ]);
});

t.test('404 unknown agent, 409 inactive agent, 401 without a key', async (t) => {
  const missing = await postCampaign(bed, p, { rows: rows(1), agent_id: '00000000-0000-4000-8000-000000000000' });
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { detail: 'agent not found' });
  const inactive = await createAgent(h, p.tenant.projectId, { active: false });
  const res = await postCampaign(bed, p, { rows: rows(1), agent_id: inactive.agentId });
  t.equal(res.statusCode, 409);
  t.same(res.json(), { detail: 'agent is inactive' });
  const anonymous = await h.app.inject({ method: 'POST', url: '/v2/voice/campaigns', payload: {} });
  t.equal(anonymous.statusCode, 401);
});

t.test('pause, resume and cancel: repeats are no-ops, a canceled campaign refuses the others', async (t) => {
  const id = (await postCampaign(bed, p, { rows: rows(4) })).json().id as string;
  const pause = await campaignAction(bed, p, id, 'pause');
  t.equal(pause.statusCode, 200);
  t.equal(pause.json().status, 'paused');
  t.equal((await campaignAction(bed, p, id, 'pause')).json().status, 'paused', 'pausing again answers the same');
  t.equal((await campaignAction(bed, p, id, 'resume')).json().status, 'running');
  const cancel = await campaignAction(bed, p, id, 'cancel');
  t.match(cancel.json(), { status: 'canceled', counters: { total: 4, queued: 0, canceled: 4 } });
  t.equal((await campaignAction(bed, p, id, 'cancel')).statusCode, 200);
  for (const action of ['pause', 'resume'] as const) {
    const res = await campaignAction(bed, p, id, action);
    t.equal(res.statusCode, 409, action);
    t.same(res.json(), { detail: 'campaign is canceled' });
  }
  const unknown = await campaignAction(bed, p, '00000000-0000-4000-8000-000000000000', 'pause');
  t.equal(unknown.statusCode, 404);
  const bad = await campaignAction(bed, p, 'not-a-uuid', 'pause');
  t.equal(bad.statusCode, 422);
  t.same(bad.json().detail[0].loc, ['path', 'campaign_id']);
});

t.test('Idempotency-Key: a repeat answers the first campaign, another body is a 422', async (t) => {
  const key = { 'idempotency-key': `campaign-${Date.now()}` };
  const first = await postCampaign(bed, p, { rows: rows(2) }, key);
  const again = await postCampaign(bed, p, { rows: rows(2) }, key);
  t.equal(again.statusCode, 201);
  t.equal(again.headers['idempotent-replayed'], 'true');
  t.equal(again.json().id, first.json().id);
  const [{ n }] = await h.ctx.sql<{ n: number }[]>`select count(*)::int as n from campaigns where project_id = ${p.tenant.projectId} and id = ${first.json().id}`;
  t.equal(n, 1);
  const misuse = await postCampaign(bed, p, { rows: rows(3) }, key);
  t.equal(misuse.statusCode, 422);
  t.same(misuse.json().detail[0].loc, ['header', 'Idempotency-Key']);
});
