import t from 'tap';
import { startReceiver, verifyDelivery } from '../fakes/receiver.js';
import { accountWithProject, checkPage, consoleCall, fitsNarrow, launchBrowser, logIn, openPage, startService } from './support.js';

// The webhooks page in a real browser against the real service and a real receiver on
// 127.0.0.1: an endpoint created with its secret shown once (and copied), a 422 on the URL
// field, a test ping that fails every attempt and becomes a dead letter, its replay with the
// same webhook-id, a 409 when a replay is already on its way, an edit in place (a 422 on its
// URL field, then saved with the same signing secret), a disable that asks first, and enabling
// the endpoint again.

// Two attempts 150 ms apart: a failing ping is a dead letter within a second.
const service = await startService({ WEBHOOK_RETRY_SCHEDULE_MS: '0,150' });
const browser = await launchBrowser();
const receiver = await startReceiver();
t.teardown(async () => {
  await browser.close();
  await receiver.close();
  await service.close();
});

t.test('webhooks: create (secret once), ping → dead letter → replay, 422 and 409, edit in place, disable and enable', async (t) => {
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

  // Edit in place: a 422 lands on the edit form's URL field; then a rename and one more event
  // are saved on the same endpoint, which keeps its signing secret.
  const before = (await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/webhooks`)).body as { id: string; revision: number }[];
  await page.getByRole('button', { name: 'Edit Orders' }).click();
  const editForm = page.getByRole('form', { name: 'Edit Orders' });
  await editForm.getByText('the signing secret stays the same').waitFor();
  await editForm.getByLabel('Endpoint URL').fill('https://user:pw@hooks.example.com/x');
  await editForm.getByRole('button', { name: 'Save changes' }).click();
  const editUrlField = editForm.locator('.field', { has: page.getByLabel('Endpoint URL') });
  await editUrlField.locator('.field-error').waitFor();
  t.match(await editUrlField.locator('.field-error').innerText(), /credentials/, 'the PATCH 422 is placed on url');
  await checkPage(t, page, 'webhooks-edit-422');
  await editForm.getByLabel('Endpoint URL').fill(receiver.url);
  await editForm.getByLabel('Endpoint name').fill('Orders v2');
  await editForm.getByLabel('call.failed').check();
  await editForm.getByRole('button', { name: 'Save changes' }).click();
  await page.getByText('Saved Orders v2 (revision 2).').waitFor();
  t.equal(await secretBox.count(), 0, 'no new secret is shown');
  const v2 = endpoints.locator('tr', { hasText: 'Orders v2' });
  t.match(await v2.innerText(), /Orders v2[\s\S]*webhook\.ping, call\.failed[\s\S]*active[\s\S]*rev 2/);
  t.equal(await endpoints.locator('tbody tr').count(), 1, 'still one endpoint');
  const after = (await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/webhooks?include_disabled=true`)).body as {
    id: string;
    name: string;
    status: string;
    event_types: string[];
    revision: number;
  }[];
  t.same(
    after.map((e) => [e.id, e.name, e.status, [...e.event_types].sort(), e.revision]),
    [[before[0].id, 'Orders v2', 'active', ['call.failed', 'webhook.ping'], before[0].revision + 1]],
    'the service changed the same endpoint',
  );
  receiver.respond(() => ({ status: 204 }));
  const seen = receiver.received.length;
  await v2.getByRole('button', { name: 'Send a test ping to Orders v2' }).click();
  const [afterEdit] = await receiver.waitFor(seen + 1).then((all) => all.slice(seen));
  t.equal(verifyDelivery(secret, afterEdit).type, 'webhook.ping', 'the edited endpoint still signs with the first secret');

  // Disable asks first; the dead letter can no longer be replayed.
  await v2.getByRole('button', { name: 'Disable' }).click();
  await v2.getByText('Its queued deliveries are cancelled').waitFor();
  await v2.getByRole('button', { name: 'Yes, disable' }).click();
  await v2.locator('.badge', { hasText: /^disabled$/ }).waitFor();
  await deadLetters.getByText('endpoint disabled').waitFor();
  t.equal(await v2.getByRole('button', { name: 'Send a test ping to Orders v2' }).count(), 0, 'a disabled endpoint offers no ping');
  await checkPage(t, page, 'webhooks-disabled');

  // Enable again: active, pings and replays are offered again.
  await v2.getByRole('button', { name: 'Enable Orders v2' }).click();
  await v2.locator('.badge', { hasText: /^active$/ }).waitFor();
  await page.getByText('Orders v2 is enabled again').waitFor();
  await deadLetters.getByRole('button', { name: 'Replay webhook.ping to Orders v2' }).waitFor();
  const enabled = (await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/webhooks`)).body as { id: string; status: string }[];
  t.same(enabled.map((e) => [e.id, e.status]), [[before[0].id, 'active']], 'the service holds it active again');
  await fitsNarrow(t, page, 'webhooks');
  t.same(problems.errors, []);
});
