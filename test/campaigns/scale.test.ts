import t from 'tap';
import { startCampaignScheduler } from '../../src/campaigns/scheduler.js';
import { startTelephonyWorkers } from '../../src/telephony/dial-worker.js';
import { phoneTenant, startBed, until } from '../telephony/helpers.js';
import { callees, getCampaign, postCampaign, startNetwork } from './helpers.js';

// 1,000 rows at concurrency 20 through the whole path: the scheduler loop, outbound admission,
// the dial worker, the fake Twilio, signed status callbacks and media streams on the media
// node. Never more than 20 calls live at the carrier, never more than 20 rows in progress, and
// every row dialled exactly once (busy / no-answer are not retried here: max_attempts 1).

const ROWS = 1000;
const CONCURRENCY = 20;

const bed = await startBed({ media: true });
const { h, fake } = bed;
const stopDials = await startTelephonyWorkers(h.ctx, { sweeper: false, concurrency: CONCURRENCY });
const numbers = callees(ROWS, 3_125_550_000);
const outcomeOf = (to: string) => (['answered', 'answered', 'busy', 'no-answer'] as const)[Number(to.slice(-1)) % 4];
const network = startNetwork(bed, (to) => outcomeOf(to), 300);
const stopScheduler = startCampaignScheduler(h.ctx, { intervalMs: 50 });
t.teardown(async () => {
  await stopScheduler();
  await network.stop();
  await stopDials();
  await bed.close();
});

t.test(`${ROWS} rows at concurrency ${CONCURRENCY}`, async (t) => {
  const p = await phoneTenant(bed, { maxConcurrent: 50 });
  const started = performance.now();
  const res = await postCampaign(bed, p, { max_concurrent_calls: CONCURRENCY, retry: { max_attempts: 1 }, rows: numbers.map((to, i) => ({ to, metadata: { n: i } })) });
  t.equal(res.statusCode, 201, 'created');
  const id = res.json().id as string;

  let maxInProgress = 0;
  let maxLiveSessions = 0;
  await until(
    async () => {
      const [row] = await h.ctx.sql<{ in_progress: number; live: number; finished: boolean }[]>`
        select (select count(*)::int from campaign_rows where campaign_id = ${id} and state = 'in_progress') as in_progress,
               (select count(*)::int from voice_sessions where project_id = ${p.tenant.projectId} and status in ('created', 'active')) as live,
               (select finished_at is not null from campaigns where id = ${id}) as finished`;
      maxInProgress = Math.max(maxInProgress, row.in_progress);
      maxLiveSessions = Math.max(maxLiveSessions, row.live);
      return row.finished;
    },
    300_000,
    'campaign finished',
  );
  const seconds = (performance.now() - started) / 1000;

  t.ok(network.maxLive() <= CONCURRENCY, `at most ${CONCURRENCY} calls live at the carrier (saw ${network.maxLive()})`);
  t.ok(maxLiveSessions <= CONCURRENCY, `at most ${CONCURRENCY} live sessions (saw ${maxLiveSessions})`);
  t.equal(maxInProgress, CONCURRENCY, 'the limit is used, not exceeded');
  t.equal(fake.calls.length, ROWS, 'one call per row');
  t.ok(numbers.every((n) => network.dialsTo.get(n) === 1), 'each number dialled exactly once');

  const c = await getCampaign(bed, p, id, '?limit=200&state=failed');
  const answered = numbers.filter((n) => outcomeOf(n) === 'answered').length;
  t.match(c, { status: 'completed', counters: { total: ROWS, completed: answered, failed: ROWS - answered, queued: 0, in_progress: 0, retrying: 0 } });
  t.same(c.rows.filter((r: { outcome: string }) => r.outcome !== 'busy' && r.outcome !== 'no_answer'), [], 'failed rows say why');
  const [{ n }] = await h.ctx.sql<{ n: number }[]>`select count(distinct a.session_id)::int as n from campaign_attempts a join campaign_rows r on r.id = a.row_id where r.campaign_id = ${id}`;
  t.equal(n, ROWS, 'one session per row');
  t.comment(`${ROWS} calls in ${seconds.toFixed(1)} s (${(ROWS / seconds).toFixed(1)} calls/s at concurrency ${CONCURRENCY}, tick 50 ms, calls held 300 ms)`);
});
