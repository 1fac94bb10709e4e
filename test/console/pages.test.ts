import t from 'tap';
import type { Page } from 'playwright-core';
import { accountWithProject, checkPage as check, fitsNarrow, launchBrowser, logIn, openPage, startService } from './support.js';

// One test per page for its main action and its error state, in a real browser against the real
// service: a 422 placed on the field its loc names, a 409 showing the service's detail, a 401
// that returns to the login page and back. Each page is checked with axe-core and at 375 px.

const service = await startService();
const browser = await launchBrowser();
t.teardown(async () => {
  await browser.close();
  await service.close();
});

async function localAccount(page: Page, projectId: string) {
  await page.goto(`${service.baseUrl}/p/${projectId}/providers`);
  await page.getByLabel('Label').fill('Local');
  await page.getByRole('button', { name: 'Add account' }).click();
  await page.getByRole('button', { name: 'Verify Local' }).click();
  await page.locator('.badge', { hasText: /^verified$/ }).waitFor({ timeout: 20_000 });
}

t.test('agents: a 422 lands on its field; a 409 shows the detail; versions differ', async (t) => {
  const a = await accountWithProject(service);
  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email);
  await localAccount(page, a.projectId);
  await page.goto(`${service.baseUrl}/p/${a.projectId}/agents`);
  await page.getByText('No agents yet').waitFor();
  await check(t, page, 'agents-empty');
  await page.getByRole('link', { name: 'New agent' }).first().click();
  await page.getByLabel('Name (required)').fill('Front desk');
  await page.getByLabel('Prompt (required)').fill('Help callers.');
  for (const stage of ['Speech to text', 'Language model', 'Text to speech']) await page.getByLabel(`${stage} account`).selectOption({ label: 'Local (local)' });
  await page.getByLabel('Text to speech voice').fill('en-us');
  const idle = page.getByLabel('Idle warn seconds');
  t.match(await page.locator('.field', { has: idle }).innerText(), /Allowed: 1 to 600/, 'bounds from the schema');
  await idle.fill('601');
  await page.getByRole('button', { name: 'Create agent' }).click();
  const fieldError = page.locator('.field', { has: idle }).locator('.field-error');
  await fieldError.waitFor();
  t.match(await fieldError.innerText(), /600/, 'the 422 is placed on idle_warn_seconds');
  t.equal(await idle.getAttribute('aria-invalid'), 'true');
  await check(t, page, 'agent-422');
  await idle.fill('');
  await page.getByRole('button', { name: 'Create agent' }).click();
  await page.getByTestId('secret').waitFor();
  await page.getByRole('link', { name: 'Open the agent' }).click();
  await page.getByRole('heading', { name: 'Front desk' }).waitFor();

  await page.getByRole('textbox', { name: 'Greeting' }).fill('Welcome to the front desk');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved as version 2.').waitFor();
  const diff = page.locator('table.diff');
  await diff.waitFor();
  t.match(await diff.innerText(), /greeting[\s\S]*Welcome to the front desk/, 'version 1 against 2 shows the greeting');
  await check(t, page, 'agent-versions');

  await page.getByRole('button', { name: 'Deactivate' }).click();
  await page.getByRole('button', { name: 'Yes, deactivate' }).click();
  await page.getByRole('button', { name: 'Activate' }).waitFor();
  await page.getByRole('button', { name: 'Rotate webhook secret' }).click();
  await page.getByRole('button', { name: 'Yes, rotate webhook secret' }).click();
  const alert = page.locator('.error[role=alert]');
  await alert.waitFor();
  t.match(await alert.innerText(), /inactive/, 'the 409 detail is shown');
  await check(t, page, 'agent-409');
  await fitsNarrow(t, page, 'agent');
  t.same(problems.errors, []);
});

t.test('a 401 sends the person to log in and back to the page they were on', async (t) => {
  const a = await accountWithProject(service);
  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email);
  await page.goto(`${service.baseUrl}/p/${a.projectId}/sessions`);
  await page.getByText('No sessions yet').waitFor();
  await check(t, page, 'sessions-empty');
  await fitsNarrow(t, page, 'sessions');
  // The session is revoked elsewhere (another tab logged out, an operator): every token dies.
  await service.ctx.sql`update auth_families set revoked_at = now() where account_id = (select id from accounts where email = ${a.email})`;
  await page.getByRole('navigation', { name: 'Project' }).getByRole('link', { name: 'Wallet' }).click();
  await page.waitForURL(/\/login\?next=/);
  t.equal(new URL(page.url()).searchParams.get('next'), `/p/${a.projectId}/wallet`);
  await page.getByText('Your session ended').waitFor();
  await check(t, page, 'login-after-401');
  await page.getByLabel('E-mail').fill(a.email);
  await page.getByLabel('Password').fill('correct horse battery staple');
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL(`${service.baseUrl}/p/${a.projectId}/wallet`);
  await page.getByTestId('balance').waitFor();
  t.equal(await page.getByTestId('balance').innerText(), '$0.00');
  await check(t, page, 'wallet');
  t.same(problems.errors, []);
});

t.test('keys: an API key is shown once, revoked after a confirmation; a bad origin is a 422 on its field', async (t) => {
  const a = await accountWithProject(service);
  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email, `/p/${a.projectId}/keys`);
  await page.getByText('No API keys').waitFor();
  await page.getByLabel('Key name').first().fill('server');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const secret = page.getByTestId('secret');
  await secret.waitFor();
  const key = await secret.innerText();
  t.match(key, /^vk_[A-Za-z0-9]{43}$/);
  await check(t, page, 'keys-created');
  await page.getByRole('button', { name: 'I have saved it' }).click();
  t.notMatch(await page.locator('main').innerText(), new RegExp(key), 'not shown again');
  t.match(await page.locator('main').innerText(), new RegExp(key.slice(0, 12)), 'its prefix is');
  await page.getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('button', { name: 'Yes, revoke' }).click();
  await page.getByText('No API keys').waitFor();
  const res = await fetch(`${service.baseUrl}/v2/agents`, { headers: { 'x-api-key': key } });
  t.equal(res.status, 401, 'the revoked key no longer works');

  await page.getByLabel('Key name').last().fill('website');
  await page.getByLabel('Allowed origins').fill('not-an-origin');
  await page.getByRole('button', { name: 'Create publishable key' }).click();
  const originField = page.locator('.field', { has: page.getByLabel('Allowed origins') });
  await originField.locator('.field-error').waitFor();
  await check(t, page, 'keys-422');
  await fitsNarrow(t, page, 'keys');
  t.same(problems.errors, []);
});

t.test('projects and provider accounts: create and switch; limits shown; the catalogue', async (t) => {
  const a = await accountWithProject(service, 'First');
  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email);
  await page.getByRole('heading', { name: 'Projects' }).waitFor();
  await page.getByRole('cell', { name: '600' }).first().waitFor();
  await page.getByLabel('Project name').fill('Second');
  await page.getByRole('button', { name: 'Create project' }).click();
  await page.waitForURL(/\/p\/[0-9a-f-]{36}\/agents$/);
  const second = /\/p\/([0-9a-f-]{36})\//.exec(page.url())![1];
  t.not(second, a.projectId);
  await page.getByRole('combobox', { name: 'Project' }).selectOption({ label: 'First' });
  await page.waitForURL(`${service.baseUrl}/p/${a.projectId}/agents`);
  await check(t, page, 'projects-switched');
  await page.goto(`${service.baseUrl}/p/${a.projectId}/providers`);
  await page.getByRole('cell', { name: 'pocketsphinx-en-us' }).waitFor();
  await page.getByLabel('Provider').selectOption('openai');
  await page.getByLabel('Label').fill('x'.repeat(121));
  await page.getByLabel('API key').fill('sk-test');
  await page.getByRole('button', { name: 'Add account' }).click();
  const labelField = page.locator('.field', { has: page.getByLabel('Label') });
  await labelField.locator('.field-error').waitFor();
  t.match(await labelField.locator('.field-error').innerText(), /120/, 'the 422 is placed on label');
  await check(t, page, 'providers-422');
  await fitsNarrow(t, page, 'providers');
  t.same(problems.errors, []);
});
