import t from 'tap';
import { runCampaignsOnce } from '../../src/campaigns/scheduler.js';
import { ManualClock } from '../../src/shared/clock.js';
import { startTelephonyWorkers } from '../../src/telephony/dial-worker.js';
import { fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { phoneTenant, startBed, until, type PhoneTenant } from '../telephony/helpers.js';
import { callees, campaignAction, getCampaign, postCampaign, startNetwork, type NetworkOutcome } from './helpers.js';

// The scheduler against the fake Twilio, one tick at a time on a manual clock: calling windows in
// each callee's zone, retries of busy / no-answer with their spacing, pause / resume / cancel,
// 402 / 429 leaving rows queued, a campaign-wide refusal pausing, and campaign.completed.

const bed = await startBed({ media: true });
const { h, fake } = bed;
const stopDials = await startTelephonyWorkers(h.ctx, { sweeper: false, concurrency: 8 });
/** What each callee does when called, by number and attempt (answered unless told). */
const script = new Map<string, (attempt: number) => NetworkOutcome>();
const network = startNetwork(bed, (to, attempt) => script.get(to)?.(attempt) ?? 'answered', 5);
t.teardown(async () => {
  await network.stop();
  await stopDials();
  await bed.close();
});

const clock = new ManualClock(Date.parse('2025-03-10T12:00:00Z')); // a Monday
const tick = () => runCampaignsOnce(h.ctx, clock);
const dials = (to: string) => network.dialsTo.get(to) ?? 0;

interface RowView {
  index: number;
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  outcome: string | null;
  last_error: string | null;
  results: { attempt: number; session_id: string; from: string; end_reason: string | null; status: string }[];
}
const rowsOf = async (p: PhoneTenant, id: string): Promise<RowView[]> => (await getCampaign(bed, p, id, '?limit=200')).rows as RowView[];

/** Waits until no row of the campaign has a live session (the network answered them all). */
async function callsEnded(id: string) {
  await until(async () => {
    const [{ n }] = await h.ctx.sql<{ n: number }[]>`
      select count(*)::int as n from campaign_rows r join voice_sessions s on s.id = r.session_id
      where r.campaign_id = ${id} and r.state = 'in_progress' and s.status in ('created', 'active')`;
    return n === 0;
  }, 10_000, 'calls ended');
}

t.test('calling windows are read in each callee zone, across DST, and rows wait for their opening', async (t) => {
  const p = await phoneTenant(bed, { maxConcurrent: 20 });
  const [ny, tokyo, london, sunday] = callees(4, 2_125_551_000);
  clock.set(Date.parse('2025-03-10T12:00:00Z')); // Mon 08:00 in New York (EDT since Mar 9), 21:00 in Tokyo, 12:00 in London
  const res = await postCampaign(bed, p, {
    timezone: 'America/New_York',
    calling_windows: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], start: '09:00', end: '17:00' }],
    rows: [{ to: ny }, { to: tokyo, timezone: 'Asia/Tokyo' }, { to: london, timezone: 'Europe/London' }, { to: sunday, timezone: 'Pacific/Auckland' }],
  });
  const id = res.json().id as string;
  await tick();
  await until(() => dials(london) === 1, 5000, 'London dialled');
  let rows = await rowsOf(p, id);
  t.same(rows.map((r) => r.state), ['queued', 'queued', 'in_progress', 'queued']);
  t.equal(rows[0].next_attempt_at, '2025-03-10T13:00:00.000Z', 'New York opens at 09:00 EDT = 13:00 UTC');
  t.equal(rows[1].next_attempt_at, '2025-03-11T00:00:00.000Z', 'Tokyo is closed at 21:00: Tuesday 09:00 JST');
  // 12:00 UTC Monday is Tuesday 01:00 in Auckland (NZDT, +13): its window opens at 09:00 local.
  t.equal(rows[3].next_attempt_at, '2025-03-10T20:00:00.000Z', 'Auckland: Tuesday 09:00 NZDT');

  clock.set(Date.parse('2025-03-10T12:59:00Z'));
  await tick();
  t.equal(dials(ny), 0, 'not a minute early');
  clock.set(Date.parse('2025-03-10T13:00:00Z'));
  await tick();
  await until(() => dials(ny) === 1, 5000, 'New York dialled at its opening');
  t.equal(dials(tokyo) + dials(sunday), 0);
  clock.set(Date.parse('2025-03-10T20:00:30Z'));
  await tick();
  await until(() => dials(sunday) === 1, 5000, 'Auckland dialled');
  clock.set(Date.parse('2025-03-11T00:00:00Z'));
  await tick();
  await until(() => dials(tokyo) === 1, 5000, 'Tokyo dialled');
  await callsEnded(id);
  await tick();
  const done = await getCampaign(bed, p, id);
  t.match(done, { status: 'completed', counters: { completed: 4 } });
  t.same([ny, tokyo, london, sunday].map(dials), [1, 1, 1, 1], 'each row dialled once');
});

t.test('a weekend window: Friday evening waits for Saturday morning, Sunday for the next Saturday', async (t) => {
  const p = await phoneTenant(bed);
  const [to] = callees(1, 2_125_552_000);
  clock.set(Date.parse('2025-03-14T22:00:00Z')); // Friday 22:00 in London (GMT)
  const id = (await postCampaign(bed, p, { timezone: 'Europe/London', calling_windows: [{ days: ['sat'], start: '10:00', end: '12:00' }], rows: [{ to }] })).json().id as string;
  await tick();
  t.equal((await rowsOf(p, id))[0].next_attempt_at, '2025-03-15T10:00:00.000Z');
  clock.set(Date.parse('2025-03-15T12:00:00Z')); // closed again at 12:00 (end is exclusive)
  await tick();
  t.equal((await rowsOf(p, id))[0].next_attempt_at, '2025-03-22T10:00:00.000Z');
  t.equal(dials(to), 0);
  await campaignAction(bed, p, id, 'cancel');
});

t.test('busy and no-answer are retried after the spacing, up to max_attempts, from the pool in turn', async (t) => {
  const p = await phoneTenant(bed);
  const second = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${p.tenant.projectId}/carriers/${p.carrierId}/numbers`,
    headers: p.tenant.bearer,
    payload: { e164: '+14155557001', outbound_enabled: true },
  });
  t.equal(second.statusCode, 201);
  const [busy, late, fine, failing] = callees(4, 2_125_553_000);
  script.set(busy, () => 'busy');
  script.set(late, (attempt) => (attempt === 1 ? 'no-answer' : 'answered'));
  script.set(failing, () => 'no-answer');
  clock.set(Date.parse('2025-03-12T15:00:00Z'));
  const id = (
    await postCampaign(bed, p, {
      from_numbers: [p.from, '+14155557001'],
      retry: { max_attempts: 3, min_spacing_seconds: 600, on: ['busy'] },
      rows: [{ to: busy }, { to: late }, { to: fine }, { to: failing }],
    })
  ).json().id as string;

  await tick();
  await callsEnded(id);
  clock.advance(1000);
  await tick();
  let rows = await rowsOf(p, id);
  t.same(rows.map((r) => [r.state, r.outcome]), [['retrying', 'busy'], ['failed', 'no_answer'], ['completed', 'caller_hangup'], ['failed', 'no_answer']], 'only busy is retried here');
  t.equal(rows[0].next_attempt_at, new Date(clock.now().getTime() + 600_000).toISOString());

  clock.advance(599_000);
  await tick();
  t.equal(dials(busy), 1, 'not before the spacing');
  clock.advance(1000);
  await tick();
  await until(() => dials(busy) === 2, 5000, 'second attempt');
  await callsEnded(id);
  clock.advance(601_000);
  await tick(); // settles attempt 2 (retry at +600 s)
  await tick();
  t.equal(dials(busy), 2, 'spacing counts from the end of the previous attempt');
  clock.advance(600_000);
  await tick();
  await until(() => dials(busy) === 3, 5000, 'third attempt');
  await callsEnded(id);
  clock.advance(1000);
  await tick();

  rows = await rowsOf(p, id);
  t.match(rows[0], { state: 'failed', outcome: 'busy', attempts: 3 });
  t.same(rows[0].results.map((r) => [r.attempt, r.status, r.end_reason]), [[1, 'failed', 'busy'], [2, 'failed', 'busy'], [3, 'failed', 'busy']]);
  t.same(rows[0].results.map((r) => r.from), [p.from, '+14155557001', p.from], 'the pool in turn');
  t.equal(new Set(rows[0].results.map((r) => r.session_id)).size, 3, 'one session per attempt');
  const campaign = await getCampaign(bed, p, id);
  t.match(campaign, { status: 'completed', counters: { total: 4, completed: 1, failed: 3, retrying: 0, queued: 0, in_progress: 0 } });
  t.same([busy, late, fine, failing].map(dials), [3, 1, 1, 1]);

  const [session] = await h.ctx.sql<{ metadata: Record<string, unknown> }[]>`select metadata from voice_sessions where id = ${rows[2].results[0].session_id}`;
  t.same(session.metadata, { campaign_id: id, campaign_row: 2, campaign_attempt: 1 }, 'the session names its campaign row and attempt');
});

t.test('pause stops new dials, resume starts them, cancel cancels the rest; campaign.completed says canceled', async (t) => {
  const p = await phoneTenant(bed);
  const hook = await h.app.inject({
    method: 'POST',
    url: `/v2/projects/${p.tenant.projectId}/webhooks`,
    headers: p.tenant.machine,
    payload: { name: 'campaigns', url: 'http://127.0.0.1:9/hook', event_types: ['campaign.completed'] },
  });
  t.equal(hook.statusCode, 201, hook.body);
  const numbers = callees(10, 2_125_554_000);
  const id = (await postCampaign(bed, p, { max_concurrent_calls: 2, rows: numbers.map((to) => ({ to })) })).json().id as string;
  await tick();
  await until(() => network.dialsTo.has(numbers[1]), 5000, 'two dialled');
  t.equal((await campaignAction(bed, p, id, 'pause')).json().status, 'paused');
  await callsEnded(id);
  await tick();
  await tick();
  t.match(await getCampaign(bed, p, id), { status: 'paused', counters: { completed: 2, queued: 8, in_progress: 0 } });
  t.notOk(network.dialsTo.has(numbers[2]), 'nothing dialled while paused');

  t.equal((await campaignAction(bed, p, id, 'resume')).json().status, 'running');
  await tick();
  await until(() => network.dialsTo.has(numbers[3]), 5000, 'two more dialled');
  const canceled = await campaignAction(bed, p, id, 'cancel');
  t.match(canceled.json(), { status: 'canceled', counters: { canceled: 6, in_progress: 2 } }, 'live calls go on');
  t.equal((await h.ctx.sql`select 1 from webhook_events where type = 'campaign.completed' and project_id = ${p.tenant.projectId}`).length, 0, 'not finished while calls are live');
  await callsEnded(id);
  await tick();
  const finished = await getCampaign(bed, p, id);
  t.match(finished, { status: 'canceled', counters: { completed: 4, canceled: 6 } });
  t.type(finished.finished_at, 'string');
  t.same(numbers.map(dials), [1, 1, 1, 1, 0, 0, 0, 0, 0, 0]);

  const events = await h.ctx.sql<{ id: string; data: { campaign: { id: string; status: string; counters: Record<string, number> } } }[]>`
    select id, data from webhook_events where type = 'campaign.completed' and project_id = ${p.tenant.projectId}`;
  t.equal(events.length, 1, 'one event');
  t.match(events[0].data.campaign, { id, status: 'canceled', counters: { total: 10, completed: 4, canceled: 6 } });
  const deliveries = await h.ctx.sql`select endpoint_id from webhook_deliveries where event_id = ${events[0].id}`;
  t.same(deliveries.map((d) => d.endpoint_id), [hook.json().id], 'delivered to the subscribed endpoint');
  await tick();
  t.equal((await h.ctx.sql`select 1 from webhook_events where type = 'campaign.completed' and project_id = ${p.tenant.projectId}`).length, 1, 'never twice');
});

t.test('402 and 429 from admission leave rows queued (with last_error) until the wallet or a slot allows', async (t) => {
  const p = await phoneTenant(bed, { wallet: 1n, maxConcurrent: 1 });
  const numbers = callees(3, 2_125_555_000);
  const id = (await postCampaign(bed, p, { max_concurrent_calls: 3, rows: numbers.map((to) => ({ to })) })).json().id as string;
  await tick();
  let c = await getCampaign(bed, p, id);
  t.match(c, { status: 'running', last_error: 'wallet cannot cover the session maximum duration', counters: { queued: 3, failed: 0 } });
  await fund(h, p.tenant.projectId, 100n * MINUTE_NANO);
  await tick();
  c = await getCampaign(bed, p, id);
  t.match(c, { last_error: 'concurrency limit reached', counters: { in_progress: 1, queued: 2 } }, 'the project allows one call at a time');
  for (let i = 0; i < 3; i++) {
    await callsEnded(id);
    await tick();
  }
  await callsEnded(id);
  await tick();
  c = await getCampaign(bed, p, id);
  t.match(c, { status: 'completed', last_error: null, counters: { completed: 3 } });
  t.same(numbers.map(dials), [1, 1, 1]);
});

t.test('an agent made inactive pauses the campaign with the reason; resume after fixing it', async (t) => {
  const p = await phoneTenant(bed);
  const numbers = callees(2, 2_125_556_000);
  const id = (await postCampaign(bed, p, { rows: numbers.map((to) => ({ to })) })).json().id as string;
  await h.ctx.sql`update agents set is_active = false where id = ${p.agentId}`;
  await tick();
  t.match(await getCampaign(bed, p, id), { status: 'paused', last_error: 'agent is inactive', counters: { queued: 2 } });
  await h.ctx.sql`update agents set is_active = true where id = ${p.agentId}`;
  t.match((await campaignAction(bed, p, id, 'resume')).json(), { status: 'running', last_error: null });
  await tick();
  await until(() => numbers.every((n) => dials(n) === 1), 5000, 'dialled after resume');
});
