import t from 'tap';
import { Webhook } from 'standardwebhooks';
import { toArray, verifyWebhook, VoiceClient, WebhookVerificationError } from '../../packages/sdk/src/index.js';
import { startReceiver } from '../fakes/receiver.js';
import { fundedTenant, startService } from './service.js';

// verifyWebhook on a real delivery: the service's worker signs a webhook.ping to a local
// receiver; the SDK verifies the raw bytes and returns the typed event. Tampering, another
// secret and a timestamp outside five minutes are refused; the reference Standard Webhooks
// library's signatures verify too.

const svc = await startService({ webhookWorkers: true });
const receiver = await startReceiver();
t.teardown(async () => {
  await receiver.close();
  await svc.close();
});
const tenant = await fundedTenant(svc.h);
const client = new VoiceClient({ apiKey: tenant.apiKey, baseUrl: svc.baseUrl });

t.test('a real delivery verifies; changes to it do not', async (t) => {
  const hooks = client.webhooks(tenant.projectId);
  const endpoint = await hooks.create({ name: 'receiver', url: `${receiver.url}/hook` });
  const ping = await hooks.test(endpoint.id);
  const [delivery] = await receiver.waitFor(1, 15_000);
  const headers = delivery.headers as Record<string, string>;

  const event = await verifyWebhook(delivery.body, headers, endpoint.signing_secret);
  t.equal(event.type, 'webhook.ping');
  if (event.type === 'webhook.ping') t.equal(event.data.endpoint_id, endpoint.id);
  t.equal(headers['webhook-id'], ping.delivery_id);
  // Bytes and a fetch Headers object work as well as a string and Node's header record.
  t.equal((await verifyWebhook(new TextEncoder().encode(delivery.body), new Headers(headers), endpoint.signing_secret)).type, 'webhook.ping');

  const refuse = async (body: string, h: Record<string, string>, secret: string, match: RegExp, name: string) => {
    const err = await verifyWebhook(body, h, secret).catch((e: unknown) => e);
    t.ok(err instanceof WebhookVerificationError, name);
    t.match((err as Error).message, match, name);
  };
  await refuse(delivery.body.replace('webhook.ping', 'webhook.pong'), headers, endpoint.signing_secret, /no matching signature/, 'tampered body');
  await refuse(delivery.body, { ...headers, 'webhook-id': 'other' }, endpoint.signing_secret, /no matching signature/, 'other id');
  await refuse(delivery.body, headers, `whsec_${Buffer.alloc(32, 7).toString('base64')}`, /no matching signature/, 'other secret');
  await refuse(delivery.body, { ...headers, 'webhook-signature': 'v2,abc' }, endpoint.signing_secret, /no matching signature/, 'unknown version');
  const { 'webhook-signature': _s, ...unsigned } = headers;
  await refuse(delivery.body, unsigned, endpoint.signing_secret, /missing webhook-signature/, 'unsigned');
  t.same(await toArray(hooks.list()).then((l) => l.length), 1);
});

t.test('five-minute window, and signatures of the reference library', async (t) => {
  const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
  const wh = new Webhook(secret);
  const body = JSON.stringify({ type: 'webhook.ping', timestamp: new Date().toISOString(), data: { endpoint_id: 'e1' } });
  const sign = (at: Date) => {
    const ts = Math.floor(at.getTime() / 1000);
    return { 'webhook-id': 'msg_1', 'webhook-timestamp': String(ts), 'webhook-signature': `v1,bogus ${wh.sign('msg_1', at, body)}` };
  };
  const now = Date.now();
  t.equal((await verifyWebhook(body, sign(new Date(now - 299_000)), secret)).type, 'webhook.ping', '299 s old, one bad signature listed first');
  t.equal((await verifyWebhook(body, sign(new Date(now + 299_000)), secret)).type, 'webhook.ping', '299 s ahead');
  const old = await verifyWebhook(body, sign(new Date(now - 301_000)), secret).catch((e: unknown) => e);
  t.match((old as Error).message, /tolerance/);
  const ahead = await verifyWebhook(body, sign(new Date(now + 301_000)), secret).catch((e: unknown) => e);
  t.match((ahead as Error).message, /tolerance/);
});
