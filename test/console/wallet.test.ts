import t from 'tap';
import { randomUUID } from 'node:crypto';
import { walletCredit } from '../../src/sessions/wallet.js';
import { accountWithProject, checkPage, consoleCall, fitsNarrow, launchBrowser, localAgent, logIn, openPage, startService } from './support.js';

// The wallet page in a real browser against the real service: balance, the hold of a call that
// is waiting to connect (a real admission through the console door), the ledger newest first
// and paged, and the service's detail when the project is not the person's.

const service = await startService();
const browser = await launchBrowser();
t.teardown(async () => {
  await browser.close();
  await service.close();
});

t.test('wallet: balance, holds and the paged ledger; another project is an error with its detail', async (t) => {
  const a = await accountWithProject(service);
  const agentId = await localAgent(service, a.token, a.projectId, 'Front desk');
  const credits = 51;
  for (let i = 0; i < credits; i++) await walletCredit(service.ctx, a.projectId, 1_000_000_000n);
  // A browser session admitted and not yet connected holds ceil(600 s / 60) minutes at $0.005.
  const admitted = await consoleCall(service, a.token, 'POST', `/console/v2/projects/${a.projectId}/voice/sessions`, { agent_id: agentId });
  t.equal(admitted.status, 201, 'a session is admitted', { body: admitted.body });
  const sessionId = admitted.body.session.id as string;

  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email, `/p/${a.projectId}/wallet`);
  await page.getByTestId('balance').waitFor();
  t.equal(await page.getByTestId('balance').innerText(), '$51.00');
  t.equal(await page.getByTestId('held').innerText(), '$0.05');
  t.match(await page.locator('.facts').innerText(), /Available\s+\$50\.95/);

  const holds = page.getByTestId('holds');
  await holds.waitFor();
  const holdRow = holds.locator('tbody tr');
  t.equal(await holdRow.count(), 1, 'one hold');
  t.match(await holdRow.innerText(), /created[\s\S]*10 min[\s\S]*\$0\.05/);
  t.equal(await holdRow.getByRole('link').getAttribute('href'), `/p/${a.projectId}/sessions/${sessionId}`, 'the hold links to its session');

  const ledger = page.getByTestId('ledger');
  const rows = ledger.locator('tr');
  await rows.nth(49).waitFor();
  t.equal(await rows.count(), 50, 'a page of 50 entries');
  t.match(await rows.first().innerText(), /hold\s+\$0\.05\s+[0-9a-f]{8}/, 'newest first: the hold, with its session');
  t.match(await rows.nth(1).innerText(), /credit\s+\$1\.00\s+—/);
  t.equal(await page.locator('.pager span').innerText(), '1–50');
  await checkPage(t, page, 'wallet-holds');
  await page.getByRole('button', { name: 'Older' }).click();
  await page.locator('.pager span', { hasText: '51–52' }).waitFor();
  t.equal(await rows.count(), 2, 'the last page holds the remaining entries');
  t.same(await rows.locator('td:nth-child(2)').allInnerTexts(), ['credit', 'credit']);
  t.ok(await page.getByRole('button', { name: 'Older' }).isDisabled(), 'no page after the last');
  await fitsNarrow(t, page, 'wallet');

  // A project that is not this person's: the service's detail, not an empty wallet.
  const other = randomUUID();
  const expected = await consoleCall(service, a.token, 'GET', `/console/v2/projects/${other}/wallet`);
  t.equal(expected.status, 404);
  await page.goto(`${service.baseUrl}/p/${other}/wallet`);
  const alert = page.locator('main .error[role=alert]').first();
  await alert.waitFor();
  t.equal(await alert.innerText(), expected.body.detail, 'the page shows the service’s detail');
  t.equal(await page.getByTestId('balance').count(), 0, 'and no balance');
  await checkPage(t, page, 'wallet-404');
  t.same(problems.errors, []);
});
