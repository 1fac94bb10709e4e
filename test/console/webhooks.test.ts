import t from 'tap';
import { startReceiver, verifyDelivery } from '../fakes/receiver.js';
import { accountWithProject, checkPage, consoleCall, fitsNarrow, launchBrowser, logIn, openPage, startService } from './support.js';

// The webhooks page in a real browser against the real service and a real receiver on
// 127.0.0.1: an endpoint created with its secret shown once (and copied), a 422 on the URL
// field, a test ping that fails every attempt and becomes a dead letter, its replay with the
// same webhook-id, a 409 when a replay is already on its way, an edit (a replacement) and a
// disable that each ask first.

// Two attempts 150 ms apart: a failing ping is a dead letter within a second.
const service = await startService({ WEBHOOK_RETRY_SCHEDULE_MS: '0,150' });
const browser = await launchBrowser();
const receiver = await startReceiver();
t.teardown(async () => {
  await browser.close();
  await receiver.close();
  await service.close();
});

t.test('webhooks: create (secret once), ping → dead letter → replay, 422 and 409, edit and disable', async (t) => {
  const a = await accountWithProject(service);
  const { page, problems } = await openPage(browser);
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: service.baseUrl });
  await logIn(page, service, a.email, `/p/${a.projectId}/webhooks`);
  await page.getByText('No webhook endpoints').waitFor();
  await page.getByText('No deliveries yet').waitFor();
  await page.getByText('No dead letters').waitFor();
  await checkPage(t, page, 'webhooks-empty');

  // 422: the URL's problem is placed under the URL field.
  const urlField = page.locator('.field', { has: page.getByLabel('Endpoint URL') });
  await page.getByLabel('Endpoint name').fill('Orders');
  await page.getByLabel('Endpoint URL').fill('ftp://hooks.example.com/x');
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  await urlField.locator('.field-error').waitFor();
  t.match(await urlField.locator('.field-error').innerText(), /http\(s\) URL/, 'the 422 is placed on url');
  t.equal(await page.getByLabel('Endpoint URL').getAttribute('aria-invalid'), 'true');
  await checkPage(t, page, 'webhooks-422');

  // Create: the signing secret is shown once, copied with the button, and signs the deliveries.
  await page.getByLabel('Endpoint URL').fill(receiver.url);
  await page.getByLabel('webhook.ping').check();
  await page.getByRole('button', { name: 'Create endpoint' }).click();
  const secretBox = page.getByTestId('secret');
  await secretBox.waitFor();
  const secret = (await secretBox.innerText()).trim();
  t.match(secret, /^whsec_[A-Za-z0-9+/=]+$/, 'the signing secret is shown');
  await page.getByRole('button', { name: 'Copy' }).click();
  await page.getByRole('button', { name: 'Copied' }).waitFor();
  t.equal(await page.evaluate('navigator.clipboard.readText()'), secret, 'the copy button copies the secret');
  await page.getByRole('button', { name: 'I have saved it' }).click();
  t.notMatch(await page.locator('main').innerText(), secret, 'the secret is not shown again');
  const endpoints = page.getByTestId('endpoints');
  t.match(await endpoints.innerText(), /Orders[\s\S]*webhook\.ping[\s\S]*active/);

  // Test ping against a receiver that answers 500: both attempts fail, the delivery is dead.
  receiver.respond(() => ({ status: 500 }));
  await page.getByRole('button', { name: 'Send a test ping to Orders' }).click();
  await page.getByText('Ping queued').waitFor();
  const deliveries = page.getByTestId('deliveries');
  await deliveries.locator('.badge', { hasText: /^dead$/ }).waitFor({ timeout: 20_000 });
  const [first] = await receiver.waitFor(2);
  t.equal(verifyDelivery(secret, first).type, 'webhook.ping', 'the ping is signed with the secret the page showed');
  const deadRow = deliveries.locator('tbody tr').first();
  t.match(await deadRow.innerText(), /webhook\.ping[\s\S]*dead[\s\S]*2 of 2[\s\S]*500/, 'attempts and the status code are shown');
  t.match(await deadRow.innerText(), first.id, 'and the webhook-id');
  const deadLetters = page.getByTestId('dead-letters');
  await deadLetters.waitFor();
  t.match(await deadLetters.innerText(), /webhook\.ping[\s\S]*Orders[\s\S]*2 of 2/);
  await checkPage(t, page, 'webhooks-dead-letter');

  // Replay while the receiver holds the request: a second replay is a 409 with the service's detail.
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  receiver.respond(() => ({ status: 204, hold: held }));
  await page.getByRole('button', { name: 'Replay webhook.ping to Orders' }).click();
  await page.getByText('Replay queued as delivery').waitFor();
  await receiver.waitFor(3);
  t.equal(receiver.received[2].id, first.id, 'the replay carries the same webhook-id');
  await page.getByRole('button', { name: 'Replay webhook.ping to Orders' }).click();
  const conflict = page.locator('#dead-h ~ .error[role=alert]');
  await conflict.waitFor();
  t.match(await conflict.innerText(), /a replay of this delivery is already queued/, 'the 409 detail is shown');
  await checkPage(t, page, 'webhooks-409');
  release();
  await deliveries.locator('.badge', { hasText: /^delivered$/ }).waitFor({ timeout: 20_000 });
  t.match(await deliveries.locator('tbody tr', { hasText: 'delivered' }).innerText(), /1 of 2[\s\S]*204/, 'the replay arrived on its first attempt');

  // Edit: a replacement with a new secret; the old endpoint is disabled.
  await page.getByRole('button', { name: 'Edit Orders' }).click();
  await page.getByText('Endpoints cannot be changed in place').waitFor();
  await page.getByRole('form', { name: 'Edit Orders' }).getByLabel('Endpoint name').fill('Orders v2');
  await page.getByRole('button', { name: 'Save as a new endpoint' }).click();
  await secretBox.waitFor();
  const secret2 = (await secretBox.innerText()).trim();
  t.not(secret2, secret, 'the replacement has its own secret');
  await endpoints.locator('tr', { hasText: 'Orders v2' }).waitFor();
  const oldRow = endpoints.locator('tr', { hasText: /Orders(?! v2)/ }).filter({ hasNotText: 'Orders v2' });
  await oldRow.locator('.badge', { hasText: /^disabled$/ }).waitFor();
  await deadLetters.getByText('endpoint disabled').waitFor();
  const created = await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/webhooks?include_disabled=true`);
  t.same(
    (created.body as { name: string; status: string; event_types: string[] }[]).sort((x, y) => x.name.localeCompare(y.name)).map((e) => [e.name, e.status, e.event_types]),
    [
      ['Orders', 'disabled', ['webhook.ping']],
      ['Orders v2', 'active', ['webhook.ping']],
    ],
    'the service holds the replacement and the disabled original',
  );

  // Disable asks first.
  const v2 = endpoints.locator('tr', { hasText: 'Orders v2' });
  await v2.getByRole('button', { name: 'Disable' }).click();
  await v2.getByText('Its queued deliveries are cancelled').waitFor();
  await v2.getByRole('button', { name: 'Yes, disable' }).click();
  await v2.locator('.badge', { hasText: /^disabled$/ }).waitFor();
  await fitsNarrow(t, page, 'webhooks');
  t.same(problems.errors, []);
});
