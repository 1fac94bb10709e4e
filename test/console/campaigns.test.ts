import t from 'tap';
import type { Page } from 'playwright-core';
import { walletCredit } from '../../src/sessions/wallet.js';
import { sendStatusCallback } from '../fakes/twilio/callbacks.js';
import { startFakeTwilio } from '../fakes/twilio/rest.js';
import { accountWithProject, checkPage, consoleCall, fitsNarrow, launchBrowser, localAgent, logIn, openPage, startService } from './support.js';

// The campaigns pages in a real browser against the real service (its worker role runs the
// campaign scheduler) and the local fake of Twilio's REST API: the empty state, a 422 placed on
// its row and field, a campaign of 3 rows created and followed as its counters move, pause
// (no new dial while paused), resume, cancel (which asks first), and the list. The fake network
// is the test: it ends each call the carrier is asked to place with a signed status callback.

const service = await startService({ CAMPAIGN_TICK_MS: '200' });
const browser = await launchBrowser();
const twilio = await startFakeTwilio();
t.teardown(async () => {
  await browser.close();
  await twilio.close();
  await service.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** The count a counter of the campaign page shows. */
const counter = async (page: Page, state: string) => Number(await page.getByTestId('counters').locator(`[data-state="${state}"] dd`).innerText());
const waitCounter = (page: Page, state: string, n: number) => until(`${state} = ${n} on the page`, async () => (await counter(page, state)) === n);

t.test('campaigns: empty state, 422 on its row and field, 3 rows followed, pause / resume / cancel', async (t) => {
  const a = await accountWithProject(service);
  const p = `/console/v2/projects/${a.projectId}`;
  const agentId = await localAgent(service, a.token, a.projectId, 'Renewals agent');
  const declared = await consoleCall(service, a.token, 'PATCH', `${p}/agents/${agentId}`, { variables: [{ name: 'first_name', required: true }] });
  t.equal(declared.status, 200, JSON.stringify(declared.body));
  await walletCredit(service.ctx, a.projectId, 10_000_000_000n);
  const tw = twilio.addAccount();
  const lines = ['+14155550100', '+14155550101', '+14155550102'];
  for (const l of lines) twilio.addNumber(tw.sid, l);
  const carrier = await consoleCall(service, a.token, 'POST', `${p}/carriers`, { kind: 'twilio', label: 'Main', credentials: { account_sid: tw.sid, auth_token: tw.token }, base_url: twilio.baseUrl });
  t.equal(carrier.status, 201, JSON.stringify(carrier.body));
  t.equal((await consoleCall(service, a.token, 'POST', `${p}/carriers/${carrier.body.id}/verify`)).status, 200);
  // Two numbers may call out; the third may not and is not offered.
  for (const [i, e164] of lines.entries()) {
    const n = await consoleCall(service, a.token, 'POST', `${p}/carriers/${carrier.body.id}/numbers`, { e164, outbound_enabled: i < 2 });
    t.equal(n.status, 201, JSON.stringify(n.body));
  }

  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email, `/p/${a.projectId}/agents`);
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Campaigns' }).click();
  await page.getByText('No campaigns yet').waitFor();
  await checkPage(t, page, 'campaigns-empty');
  await page.getByRole('link', { name: 'Start a campaign' }).click();

  // The form: the outbound numbers only, both ticked; defaults from the schema.
  const form = page.getByRole('form', { name: 'New campaign' });
  await form.waitFor();
  const offered = await form.locator('fieldset', { hasText: 'Call from' }).getByRole('checkbox').evaluateAll((els) => els.map((e) => [e.parentElement!.textContent!.trim(), (e as HTMLInputElement).checked]));
  t.same(offered, [[lines[0], true], [lines[1], true]], 'the numbers with outbound on are offered, ticked');
  t.equal(await form.getByLabel('Attempts per row').inputValue(), '3', 'the retry default comes from the schema');
  t.equal(await form.getByLabel('Calls at once').inputValue(), '5');

  // 422: row 2's `to` is not E.164 and 0 calls at once is below the bound; each shown at its place.
  await form.getByLabel('Campaign name').fill('Spring renewals');
  await form.getByLabel('Rows', { exact: true }).fill('to,first_name\n+12125550100,Ada\n12345,Lin\n+12125550102,Grace');
  await form.getByTestId('rows-read').getByText('3 rows read (CSV).').waitFor();
  await form.getByLabel('Calls at once').fill('0');
  await form.getByRole('button', { name: 'Add a calling window' }).click();
  await form.getByLabel('Window 1 ends').fill('08:00');
  await form.getByRole('button', { name: 'Start campaign' }).click();
  const problemRows = form.getByTestId('row-problems');
  await problemRows.waitFor();
  const bad = problemRows.locator('tbody tr');
  t.equal(await bad.count(), 1, 'one row has a problem');
  t.equal(await bad.getAttribute('data-row'), '2', 'it is row 2');
  t.match(await bad.innerText(), /Row 2\s+3\s+12345\s+to: .*E\.164/, `shown against row 2 (line 3): ${await bad.innerText()}`);
  const concurrencyField = form.locator('.field', { has: page.getByLabel('Calls at once') });
  t.match(await concurrencyField.locator('.field-error').innerText(), /1/, 'the bound is placed on Calls at once');
  t.equal(await form.getByLabel('Calls at once').getAttribute('aria-invalid'), 'true');
  const endField = form.locator('.field', { has: page.getByLabel('Window 1 ends') });
  t.match(await endField.locator('.field-error').innerText(), /after start/, 'the window error is placed on its end');
  t.match(await form.locator('.field', { has: page.getByLabel('Rows', { exact: true }) }).locator('.field-error').innerText(), /1 row has problems/);
  t.equal((await consoleCall(service, a.token, 'GET', `${p}/voice/campaigns`)).body.length, 0, 'nothing was created');
  await checkPage(t, page, 'campaign-422');
  await fitsNarrow(t, page, 'campaign-form');

  // The shape is right now; the agent's check finds row 3 without its required variable.
  await form.getByLabel('Rows', { exact: true }).fill('to,first_name\n+12125550100,Ada\n+12125550101,Lin\n+12125550102,');
  await form.getByLabel('Calls at once').fill('1');
  // Every day, all day: a window that is always open (24:00 ends the day).
  await form.getByLabel('Window 1 starts').fill('00:00');
  await form.getByLabel('Window 1 ends').fill('24:00');
  const days = form.getByRole('group', { name: 'Days of window 1' });
  await days.getByLabel('Sat').check();
  await days.getByLabel('Sun').check();
  await form.getByRole('button', { name: 'Start campaign' }).click();
  await problemRows.locator('tbody tr[data-row="3"]').waitFor();
  t.equal(await problemRows.locator('tbody tr').count(), 1, 'only row 3 is named');
  t.match(await problemRows.locator('tbody tr').innerText(), /Row 3\s+4\s+\+12125550102\s+variables\.first_name: /, `the agent's check is shown against row 3: ${await problemRows.locator('tbody tr').innerText()}`);
  t.equal(await concurrencyField.locator('.field-error').count() + (await endField.locator('.field-error').count()), 0, 'the fixed fields are no longer marked');

  // Fixed: one call at a time, two attempts 1 s apart on busy.
  await form.getByLabel('Rows', { exact: true }).fill('to,first_name\n+12125550100,Ada\n+12125550101,Lin\n+12125550102,Grace');
  await form.getByLabel('Calls at once').fill('1');
  await form.getByLabel('Attempts per row').fill('2');
  await form.getByLabel('Seconds between attempts').fill('1');
  await form.getByRole('button', { name: 'Start campaign' }).click();
  await page.getByRole('heading', { name: 'Spring renewals' }).waitFor().catch(async (err: unknown) => {
    await checkPage(t, page, 'campaign-create-failed');
    throw err;
  });
  t.match(page.url(), /\/campaigns\/[0-9a-f-]{36}$/, 'the page of the new campaign opened');
  const campaignId = page.url().split('/').pop()!;
  const stored = (await consoleCall(service, a.token, 'GET', `${p}/voice/campaigns/${campaignId}`)).body;
  t.same(
    [stored.from_numbers, stored.max_concurrent_calls, stored.calling_windows, stored.retry, stored.rows.map((r: { to: string }) => r.to)],
    [[lines[0], lines[1]], 1, [{ days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], start: '00:00', end: '24:00' }], { max_attempts: 2, min_spacing_seconds: 1, on: ['busy', 'no_answer'] }, ['+12125550100', '+12125550101', '+12125550102']],
    'the campaign was created as the form said',
  );

  // The first row is dialled; the page follows it.
  await until('the first dial', () => twilio.calls.length === 1);
  await waitCounter(page, 'in_progress', 1);
  t.equal(await counter(page, 'queued'), 2);
  await checkPage(t, page, 'campaign-running');

  // Pause, then the call ends busy: the row waits to retry, and nothing is dialled while paused.
  // By keyboard: focus and Enter.
  await page.getByRole('button', { name: 'Pause' }).focus();
  await page.keyboard.press('Enter');
  await page.locator('.title-row .badge', { hasText: 'paused' }).waitFor();
  t.ok((await sendStatusCallback(twilio, twilio.calls[0].sid, 'busy')).status < 300, 'the carrier reports the call busy');
  await waitCounter(page, 'retrying', 1);
  t.equal(await counter(page, 'in_progress'), 0);
  await sleep(2000); // ten ticks past the retry's spacing
  t.equal(twilio.calls.length, 1, 'no call is placed while the campaign is paused');
  const firstRow = page.getByTestId('campaign-rows').locator('tr[data-row="1"]');
  t.match(await firstRow.innerText(), /retrying[\s\S]*1[\s\S]*#1 busy/, `row 1 shows its busy attempt: ${await firstRow.innerText()}`);
  t.ok(await firstRow.getByRole('link', { name: 'Session of row 1, attempt 1' }).isVisible(), 'the attempt links to its session');
  await checkPage(t, page, 'campaign-paused');
  await fitsNarrow(t, page, 'campaign-paused');

  // Resume: the next dial starts.
  await page.getByRole('button', { name: 'Resume' }).click();
  await until('a dial after resume', () => twilio.calls.length === 2);
  await page.locator('.title-row .badge', { hasText: 'running' }).waitFor();
  await waitCounter(page, 'in_progress', 1);

  // Cancel asks first; "Cancel" of the question keeps the campaign running.
  // (The first time by keyboard: the question takes the focus on its yes; Tab, Enter says no.)
  await page.getByRole('button', { name: 'Cancel campaign' }).focus();
  await page.keyboard.press('Enter');
  const question = page.getByRole('group', { name: /Cancel every row not yet dialled/ });
  await question.waitFor();
  await checkPage(t, page, 'campaign-cancel-asks');
  t.equal(await page.evaluate('document.activeElement.textContent'), 'Yes, cancel campaign', 'the question has the focus');
  await page.keyboard.press('Tab');
  await page.keyboard.press('Enter');
  await question.waitFor({ state: 'detached' });
  t.equal(await page.locator('.title-row .badge').innerText(), 'running', 'not canceled without a yes');
  await page.getByRole('button', { name: 'Cancel campaign' }).click();
  await page.getByRole('button', { name: 'Yes, cancel campaign' }).click();
  await page.locator('.title-row .badge', { hasText: 'canceled' }).waitFor();
  // The call in progress goes on; ended, it leaves nothing live and the campaign finishes.
  t.equal(await counter(page, 'in_progress'), 1, 'the call in progress goes on');
  // (It fails outright: a busy one would wait for a retry that a canceled campaign never makes.)
  t.ok((await sendStatusCallback(twilio, twilio.calls[1].sid, 'failed')).status < 300, 'the carrier reports the call failed');
  await waitCounter(page, 'in_progress', 0);
  await page.getByText(/^Finished /).waitFor();
  const done = (await consoleCall(service, a.token, 'GET', `${p}/voice/campaigns/${campaignId}`)).body;
  t.equal(done.status, 'canceled');
  t.ok(done.finished_at, 'the campaign finished');
  t.equal(done.counters.total, 3);
  t.same([done.counters.canceled, done.counters.failed], [2, 1], `the rows waiting are canceled, the last call failed: ${JSON.stringify(done.counters)}`);
  for (const k of ['queued', 'in_progress', 'retrying', 'completed', 'failed', 'canceled'] as const) t.equal(await counter(page, k), done.counters[k], `the page shows ${k} as the service does`);
  t.equal(twilio.calls.length, 2, 'nothing was dialled after cancel');
  t.equal(await page.getByRole('button', { name: 'Pause' }).count(), 0, 'a canceled campaign has no controls');
  await checkPage(t, page, 'campaign-canceled');

  // The list shows it, with its status and progress.
  await page.getByRole('link', { name: 'All campaigns' }).click();
  const table = page.getByTestId('campaigns');
  await table.getByRole('rowheader', { name: 'Spring renewals' }).waitFor();
  t.match(await table.innerText(), /Spring renewals\s+canceled\s+3 of 3 done/);
  await checkPage(t, page, 'campaigns-list');
  await fitsNarrow(t, page, 'campaigns-list');
  t.same(problems.errors, []);
});

t.test('the webhook form offers every event type the service documents, campaign.completed included', async (t) => {
  const a = await accountWithProject(service);
  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email, `/p/${a.projectId}/webhooks`);
  const events = page.getByRole('group', { name: 'Events' });
  await events.getByLabel('campaign.completed').waitFor();
  const spec = (await (await fetch(`${service.baseUrl}/openapi.json`)).json()) as { components: { schemas: Record<string, { properties: Record<string, { items: { enum: string[] } }> }> } };
  const documented = spec.components.schemas.CreateWebhookEndpointRequest.properties.event_types.items.enum;
  t.same(await events.getByRole('checkbox').evaluateAll((els) => els.map((e) => e.parentElement!.textContent!.trim())), documented);
  t.ok(documented.includes('call.transferred') && documented.includes('campaign.completed'));
  t.same(problems.errors, []);
});
