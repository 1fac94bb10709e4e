import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { walletCredit } from '../../src/sessions/wallet.js';
import { axeViolations, launchBrowser, mailCount, openPage, PASSWORD, screenshot, startService, verificationLink } from './support.js';

// One person's way through the console in a real browser against the real service: sign up,
// verify the e-mail from the development mail log, create a project, add and verify the local
// provider, create an agent, call it with the (fake) microphone, read the transcript on the
// session page. The microphone plays an espeak-ng recording; the local pipeline (pocketsphinx,
// the echo model, espeak-ng) answers.

const dir = mkdtempSync(join(tmpdir(), 'console-journey-'));
const wav = join(dir, 'caller.wav');
execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', join(dir, 'raw.wav'), 'hello, I would like to book a table for two']);
// Silence after the sentence, so the turn ends before the recording loops.
execFileSync('sox', ['-R', join(dir, 'raw.wav'), '-r', '48000', '-c', '1', wav, 'pad', '0.5', '3']);

const service = await startService();
const browser = await launchBrowser(wav);
t.teardown(async () => {
  await browser.close();
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

t.test('sign-up → verify → project → provider → agent → test call → transcript on the session page', async (t) => {
  const { page, problems } = await openPage(browser);
  const base = service.baseUrl;
  const email = `journey-${Date.now()}@example.com`;

  await page.goto(`${base}/`);
  await page.waitForURL(/\/login\?next=/);
  await page.getByRole('link', { name: 'Sign up' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  const mails = mailCount(service);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Check your e-mail' }).waitFor();
  t.match(await page.locator('main').innerText(), /development mail transport writes the mail to the service log/);
  await screenshot(page, 'journey-1-signed-up');

  const link = await verificationLink(service, mails);
  await page.getByRole('link', { name: 'Verify your e-mail' }).click();
  await page.getByLabel('Verification link or token').fill(link);
  await page.getByRole('button', { name: 'Verify' }).click();
  await page.getByText('Your e-mail is verified').waitFor();

  await page.getByRole('link', { name: 'Log in' }).click();
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.getByText('No projects yet').waitFor();
  t.same(await page.evaluate('Object.keys(localStorage)'), [], 'nothing in localStorage');

  await page.getByLabel('Project name').fill('Journey');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/p\/[0-9a-f-]{36}\/agents$/);
  const projectId = /\/p\/([0-9a-f-]{36})\//.exec(page.url())![1];
  await page.getByTestId('limits').waitFor();
  t.match(await page.getByTestId('limits').innerText(), /600 API requests a minute, 10 concurrent sessions/);
  // The operator credits the wallet (an admin command, not a console page).
  await walletCredit(service.ctx, projectId, 10_000_000_000n);

  const nav = page.getByRole('navigation', { name: 'Project' });
  await nav.getByRole('link', { name: 'Provider accounts' }).click();
  await page.getByText('No provider accounts yet').waitFor();
  await page.getByLabel('Label').fill('Local');
  await page.getByRole('button', { name: 'Add account' }).click();
  await page.getByRole('button', { name: 'Verify Local' }).click();
  await page.locator('.badge', { hasText: /^verified$/ }).waitFor({ timeout: 20_000 });
  await screenshot(page, 'journey-2-provider');

  await nav.getByRole('link', { name: 'Agents' }).click();
  await page.getByRole('link', { name: 'New agent' }).first().click();
  await page.getByLabel('Name (required)').fill('Booking desk');
  await page.getByLabel('Prompt (required)').fill('You take table bookings.');
  await page.getByLabel('Language', { exact: true }).fill('en-US');
  for (const stage of ['Speech to text', 'Language model', 'Text to speech']) {
    await page.getByLabel(`${stage} account`).selectOption({ label: 'Local (local)' });
  }
  await page.getByLabel('Text to speech voice').fill('en-us');
  await page.getByLabel('Store transcript').check();
  await page.getByLabel('Backchannel').uncheck();
  await page.getByRole('button', { name: 'Create agent' }).click();
  await page.getByTestId('secret').waitFor();
  t.match(await page.getByTestId('secret').innerText(), /^whsec_/, 'the webhook secret is shown once');
  await screenshot(page, 'journey-3-agent');

  await page.getByRole('link', { name: 'Test call' }).last().click();
  await page.getByRole('button', { name: 'Start call' }).click();
  const live = page.getByTestId('live-transcript');
  await live.locator('.turn.user').first().waitFor({ timeout: 60_000 });
  await live.locator('.turn.assistant').first().waitFor({ timeout: 60_000 });
  const heard = (await live.locator('.turn.user .what').first().innerText()).trim();
  t.ok(heard.length > 0, `the caller was heard: "${heard}"`);
  await screenshot(page, 'journey-4-call');
  await page.getByRole('button', { name: 'Hang up' }).click();
  await page.getByTestId('call-result').getByText(/Cost \$/).waitFor({ timeout: 30_000 });
  t.match(await page.getByTestId('call-result').innerText(), /Cost \$0\.005 for \d+ s \(caller_hangup\)/);

  await page.getByRole('link', { name: 'Open the session' }).click();
  const transcript = page.getByTestId('transcript');
  await transcript.waitFor({ timeout: 20_000 });
  const saved = await transcript.locator('.turn.user .what').allInnerTexts();
  t.ok(saved.map((s) => s.trim()).includes(heard), 'the session page shows what the live transcript showed');
  t.ok((await transcript.locator('.turn.assistant').count()) > 0, 'and the agent’s answer');
  t.match(await page.getByTestId('cost').innerText(), /^\$0\.005 /);
  await screenshot(page, 'journey-5-session');
  t.same(await axeViolations(page), [], 'the session page has no serious or critical accessibility violations');
  t.same(problems.errors, [], 'no page errors and no CSP violations');
});
