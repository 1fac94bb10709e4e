import t from 'tap';
import type { Page } from 'playwright-core';
import { accountWithProject, checkPage, consoleCall, fitsNarrow, launchBrowser, localAgent, logIn, openPage, startService } from './support.js';

// The sessions list in a real browser against the real service, over 1,005 sessions written
// straight into the table (as finished calls leave them): newest first, 50 a page through all
// of them, every filter of spec §4.3 (status, agent, from, to, has insights) alone and combined,
// kept in the address, and a hand-edited bad filter answered with the service's detail.

const service = await startService();
const browser = await launchBrowser();
t.teardown(async () => {
  await browser.close();
  await service.close();
});

interface Row {
  id: string;
  agent_id: string;
  status: string;
  insights: boolean;
  created_at: Date;
}

/** `n` finished sessions of `agentId`, one a minute back from `startMinutesAgo`: every 7th failed, every 3rd with insights. */
async function insertSessions(projectId: string, agentId: string, n: number, startMinutesAgo: number): Promise<Row[]> {
  const completedInsights = { status: 'completed', summary: 'booked', success: true, data: {}, model: 'echo', completed_at: new Date().toISOString() };
  // A failed analysis is not "has insights" (spec §4.3 rule 1).
  const failedInsights = { ...completedInsights, status: 'failed', summary: null, success: null, error: 'model unavailable' };
  return service.ctx.sql<Row[]>`
    insert into voice_sessions (project_id, agent_id, agent_version, status, direction, language, pipeline_mode, pipeline_snapshot,
      project_revision, sample_rate_in, sample_rate_out, max_duration_seconds, connected_seconds, created_at, started_at, ended_at,
      end_reason, record, store_transcript, insights, rate_nano_usd_per_min, rate_version, hold_nano_usd, cost_nano_usd, settled_at)
    select ${projectId}, ${agentId}, 1, case when i % 7 = 0 then 'failed' else 'completed' end, 'web', 'en-US', 'cascade', '{}'::jsonb,
      1, 16000, 24000, 600, 30, now() - (${startMinutesAgo} + i) * interval '1 minute', now() - (${startMinutesAgo} + i) * interval '1 minute',
      now() - (${startMinutesAgo} + i) * interval '1 minute' + interval '30 seconds', 'caller_hangup', false, false,
      case when i % 3 = 0 then ${service.ctx.sql.json(completedInsights)} when i % 11 = 0 then ${service.ctx.sql.json(failedInsights)} else null end,
      5000000, '2026-01', 50000000, 5000000, now()
    from generate_series(0, ${n - 1}) as i
    returning id, agent_id, status, coalesce(insights->>'status' = 'completed', false) as insights, created_at`;
}

/** Session ids of the rows on the page, top to bottom (from their links). */
async function shownIds(page: Page): Promise<string[]> {
  const hrefs = await page.locator('table tbody tr td:first-child a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? ''));
  return hrefs.map((h) => h.split('/').pop()!);
}

/** Waits for the list to have loaded the page of the current address, and for its range to be `range`. */
async function settled(page: Page, range: string): Promise<void> {
  await page.locator('[data-testid=session-list][aria-busy=false] .pager span', { hasText: new RegExp(`^${range}$`) }).waitFor();
}

/** datetime-local value of a moment in the browser's (and this process's) time zone. */
const local = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

t.test('sessions: 1,005 rows paged newest first; every filter; a bad filter shows the detail', async (t) => {
  const a = await accountWithProject(service);
  const front = await localAgent(service, a.token, a.projectId, 'Front desk');
  const night = await localAgent(service, a.token, a.projectId, 'Night line');
  // Night line's five calls are two days old; Front desk's thousand are from the last 17 hours.
  const rows = [...(await insertSessions(a.projectId, front, 1000, 0)), ...(await insertSessions(a.projectId, night, 5, 2 * 24 * 60))];
  const newestFirst = [...rows].sort((x, y) => y.created_at.getTime() - x.created_at.getTime()).map((r) => r.id);
  const byId = new Map(rows.map((r) => [r.id, r]));

  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email, `/p/${a.projectId}/sessions`);
  await settled(page, '1–50');
  await checkPage(t, page, 'sessions-list');

  // Every session, page by page, newest first; long tasks of the main thread are measured meanwhile.
  await page.evaluate(`window.__long = []; new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration))).observe({ type: 'longtask' });`);
  const seen: string[] = [];
  for (let p = 0; ; p++) {
    await settled(page, `${p * 50 + 1}–${Math.min((p + 1) * 50, rows.length)}`);
    seen.push(...(await shownIds(page)));
    const older = page.getByRole('button', { name: 'Older' });
    if (await older.isDisabled()) break;
    await older.click();
  }
  t.equal(seen.length, rows.length, `all ${rows.length} sessions were listed`);
  t.same(seen, newestFirst, 'newest first, none twice, none missing');
  t.equal(new URL(page.url()).searchParams.get('offset'), '1000', 'the page is in the address');
  const longTasks = (await page.evaluate('window.__long')) as number[];
  t.comment(`paging 1,005 sessions (21 pages of ≤50 rows): ${longTasks.length} long tasks, longest ${Math.round(Math.max(0, ...longTasks))} ms`);

  // Each filter alone: every row shown is one the filter admits, and the first page is the first 50 of them.
  const expectFirstPage = async (name: string, admits: (r: Row) => boolean) => {
    const want = newestFirst.filter((id) => admits(byId.get(id)!)).slice(0, 50);
    await settled(page, `1–${want.length}`);
    t.same(await shownIds(page), want, `${name}: the newest ${want.length} matching sessions`);
  };
  await page.goto(`${service.baseUrl}/p/${a.projectId}/sessions`);
  await settled(page, '1–50');
  await page.getByLabel('Status').selectOption('failed');
  await expectFirstPage('status=failed', (r) => r.status === 'failed');
  t.equal(new URL(page.url()).searchParams.get('status'), 'failed', 'the filter is in the address');
  await page.getByLabel('Status').selectOption('');

  await page.getByLabel('Agent').selectOption({ label: 'Night line' });
  await expectFirstPage('agent', (r) => r.agent_id === night);
  await page.getByLabel('Agent').selectOption('');

  const dayAgo = new Date(Date.now() - 24 * 3600_000);
  await page.getByLabel('To').fill(local(dayAgo));
  await expectFirstPage('to', (r) => r.created_at.getTime() <= dayAgo.getTime());
  await page.getByLabel('To').fill('');
  await page.getByLabel('From').fill(local(dayAgo));
  await expectFirstPage('from', (r) => r.created_at.getTime() >= dayAgo.getTime());
  await page.getByLabel('From').fill('');

  await page.getByLabel('Insights').selectOption('true');
  await expectFirstPage('has_insights=true', (r) => r.insights);
  await page.getByLabel('Insights').selectOption('false');
  await expectFirstPage('has_insights=false', (r) => !r.insights);

  // Combined, and kept across a reload.
  await page.getByLabel('Status').selectOption('failed');
  await page.getByLabel('Agent').selectOption({ label: 'Front desk' });
  await expectFirstPage('failed, Front desk, without insights', (r) => r.status === 'failed' && r.agent_id === front && !r.insights);
  await page.reload();
  await expectFirstPage('the same after a reload', (r) => r.status === 'failed' && r.agent_id === front && !r.insights);
  t.equal(await page.getByLabel('Insights').inputValue(), 'false');
  await checkPage(t, page, 'sessions-filtered');
  await fitsNarrow(t, page, 'sessions-filtered');

  // Nothing matches: the empty state says what to do.
  await page.getByLabel('Agent').selectOption({ label: 'Night line' });
  await page.getByText('No sessions match these filters').waitFor();

  // A hand-edited address with a bad date: the service's 422 detail, not an empty list.
  const bad = await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/voice/sessions?from=yesterday`);
  t.equal(bad.status, 422);
  t.same(bad.body.detail[0].loc, ['query', 'from']);
  await page.goto(`${service.baseUrl}/p/${a.projectId}/sessions?from=yesterday`);
  const alert = page.locator('main .error[role=alert]');
  await alert.waitFor();
  t.match(await alert.innerText(), /^query\.from: /, `the detail names the field: ${await alert.innerText()}`);
  const fromField = page.locator('.field', { has: page.getByLabel('From') });
  t.equal(await fromField.locator('.field-error').innerText(), bad.body.detail[0].msg, 'and is placed at the From filter');
  t.equal(await page.getByLabel('From').getAttribute('aria-invalid'), 'true');
  await checkPage(t, page, 'sessions-422');
  t.same(problems.errors, []);
});
