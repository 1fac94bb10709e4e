import t from 'tap';
import { walletCredit } from '../../src/sessions/wallet.js';
import { startFakeTwilio } from '../fakes/twilio/rest.js';
import { accountWithProject, checkPage, consoleCall, fitsNarrow, launchBrowser, localAgent, logIn, openPage, startService } from './support.js';

// The phone page in a real browser against the real service and a local fake of Twilio's REST
// API (the carrier's base_url points at it): a Twilio account added and verified, a number
// added and bound to an agent (the service sets the voice URL at the carrier), outbound on and
// off, an outbound call placed at the carrier; 422s on their fields and the 409 of deleting a
// carrier that still has numbers.

const service = await startService();
const browser = await launchBrowser();
const twilio = await startFakeTwilio();
t.teardown(async () => {
  await browser.close();
  await twilio.close();
  await service.close();
});

t.test('phone: add and verify Twilio, bind a number, outbound on/off, call out; 422s and a 409', async (t) => {
  const a = await accountWithProject(service);
  await localAgent(service, a.token, a.projectId, 'Front desk');
  await walletCredit(service.ctx, a.projectId, 10_000_000_000n);
  const tw = twilio.addAccount();
  const line = '+14155550100';
  twilio.addNumber(tw.sid, line);

  const { page, problems } = await openPage(browser);
  await logIn(page, service, a.email, `/p/${a.projectId}/phone`);
  await page.getByText('No carriers yet').waitFor();
  await checkPage(t, page, 'phone-empty');

  // 422 on the account SID; then the account is added and verified against the fake.
  await page.getByLabel('Carrier label').fill('Main line');
  await page.getByLabel('Account SID').fill('AC123');
  await page.getByLabel('Auth token').fill(tw.token);
  await page.getByLabel('API base URL (optional)').fill(twilio.baseUrl);
  await page.getByRole('button', { name: 'Add carrier' }).click();
  const sidField = page.locator('.field', { has: page.getByLabel('Account SID') });
  await sidField.locator('.field-error').waitFor();
  t.match(await sidField.locator('.field-error').innerText(), /AC followed by 32 hexadecimal digits/, 'the 422 is placed on the account SID');
  await checkPage(t, page, 'phone-422');
  await page.getByLabel('Account SID').fill(tw.sid);
  await page.getByRole('button', { name: 'Add carrier' }).click();
  const carriers = page.getByTestId('carriers');
  await carriers.locator('.badge', { hasText: /^unverified$/ }).waitFor();
  t.notMatch(await page.locator('main').innerText(), tw.token, 'the auth token is never shown');
  t.equal(await page.getByLabel('Auth token').inputValue(), '', 'and the form forgets it');
  await page.getByRole('button', { name: 'Verify Main line' }).click();
  await carriers.locator('.badge', { hasText: /^verified$/ }).waitFor();
  t.ok(twilio.requests.some((r) => r.method === 'GET' && r.path === `/2010-04-01/Accounts/${tw.sid}.json`), 'verify asked the carrier');

  // A number: a malformed one is a 422 on its field; then added without an agent, then bound in its row.
  await page.getByText('No numbers on Main line').waitFor();
  await page.getByLabel('Phone number').fill('555-0100');
  await page.getByRole('button', { name: 'Add number' }).click();
  const numberField = page.locator('.field', { has: page.getByLabel('Phone number') });
  await numberField.locator('.field-error').waitFor();
  t.match(await numberField.locator('.field-error').innerText(), /E\.164/);
  await page.getByLabel('Phone number').fill(line);
  await page.getByRole('button', { name: 'Add number' }).click();
  const numbers = page.getByTestId('numbers-Main line');
  await numbers.getByRole('rowheader', { name: line }).waitFor();
  await page.getByLabel(`Inbound agent for ${line}`).selectOption({ label: 'Front desk' });
  await numbers.getByText('set at the carrier').waitFor();
  const voiceUrl = (await numbers.getByTestId('voice-url').innerText()).trim();
  t.match(voiceUrl, new RegExp(`^${service.baseUrl}/`), `the voice URL is the service's: ${voiceUrl}`);
  t.equal(twilio.number(line, tw.sid)?.voiceUrl, voiceUrl, 'the service set that voice URL at the carrier');
  await checkPage(t, page, 'phone-number-bound');
  // Someone changed the number at the carrier's console: Sync puts the voice URL back.
  twilio.number(line, tw.sid)!.voiceUrl = 'https://elsewhere.example.com/voice';
  const syncs = twilio.requests.length;
  await page.getByRole('button', { name: `Sync ${line} at the carrier` }).click();
  for (let i = 0; i < 100 && twilio.number(line, tw.sid)?.voiceUrl !== voiceUrl; i++) await new Promise((r) => setTimeout(r, 50));
  t.equal(twilio.number(line, tw.sid)?.voiceUrl, voiceUrl, 'Sync set the voice URL at the carrier again');
  t.ok(twilio.requests.length > syncs);

  // Outbound off: the number leaves the call form's `from` list; on again, it is back.
  const outbound = page.getByRole('checkbox', { name: `Outbound calls from ${line}` });
  t.ok(await outbound.isChecked(), 'outbound is on by default');
  await outbound.uncheck();
  await page.getByText('To call out you need').waitFor();
  const stored = await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/carriers`);
  const numbersNow = await consoleCall(service, a.token, 'GET', `/console/v2/projects/${a.projectId}/carriers/${stored.body[0].id}/numbers`);
  t.equal(numbersNow.body[0].outbound_enabled, false, 'the service turned outbound off');
  await outbound.check();
  const call = page.getByRole('form', { name: 'Start an outbound call' });
  await call.waitFor();
  t.equal(await call.getByLabel('From').inputValue(), line);

  // The call: a 422 on `to`, then a call the carrier is asked to place.
  await call.getByLabel('To').fill('12345');
  await call.getByRole('button', { name: 'Call' }).click();
  const toField = call.locator('.field', { has: page.getByLabel('To', { exact: true }) });
  await toField.locator('.field-error').waitFor();
  t.match(await toField.locator('.field-error').innerText(), /E\.164/, 'the 422 is placed on to');
  await call.getByLabel('To').fill('+14155550123');
  await call.getByRole('button', { name: 'Call' }).click();
  await page.getByTestId('outbound-started').waitFor();
  for (let i = 0; i < 200 && twilio.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.equal(twilio.calls.length, 1, 'the carrier was asked to place the call');
  t.same([twilio.calls[0]?.form.To, twilio.calls[0]?.form.From], [['+14155550123'], [line]]);
  await checkPage(t, page, 'phone-outbound');

  // 409: a carrier with numbers cannot be deleted; the service's detail is shown.
  await carriers.getByRole('button', { name: 'Delete' }).click();
  await carriers.getByRole('button', { name: 'Yes, delete' }).click();
  const conflict = page.locator('#carriers-h ~ .error[role=alert]');
  await conflict.waitFor();
  t.match(await conflict.innerText(), /number/i, `the 409 detail is shown: ${await conflict.innerText()}`);
  await checkPage(t, page, 'phone-409');
  await fitsNarrow(t, page, 'phone');
  t.same(problems.errors, []);
});
