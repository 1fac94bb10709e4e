import t, { type Test } from 'tap';
import { startHarness, type Harness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { PER_ADDRESS_PER_MINUTE } from '../../src/control/routes/browser-sessions/index.js';

// The per-address limit of POST /v2/browser/sessions counts the real client: behind a proxy that
// TRUST_PROXY names, the address X-Forwarded-For gives (the proxy's own entry, not one the client
// wrote before it); without TRUST_PROXY, X-Forwarded-For is ignored, so it cannot be used to
// dodge the limit. Real HTTP over a listening socket from 127.0.0.1 (the "proxy").

const ORIGIN = 'https://shop.example.com';
const UNKNOWN_AGENT = '00000000-0000-4000-8000-000000000000'; // 404 after the limits: no session, no slot

async function setUp(t: Test, env: Record<string, string>) {
  const h: Harness = await startHarness({ env });
  t.teardown(h.close);
  const tenant = await createTenant(h);
  const res = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${tenant.projectId}/publishable-keys`,
    headers: tenant.bearer,
    payload: { name: 'shop', origins: [ORIGIN] },
  });
  const key = res.json().key as string;
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = h.app.server.address() as { port: number };
  const post = (forwardedFor: string) =>
    fetch(`http://127.0.0.1:${port}/v2/browser/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-publishable-key': key, origin: ORIGIN, 'x-forwarded-for': forwardedFor },
      body: JSON.stringify({ agent_id: UNKNOWN_AGENT }),
    });
  const countedAddresses = async () =>
    (await h.ctx.redis.keys(`${h.ctx.redisPrefix}rl:{ip:*`)).map((k) => k.slice(`${h.ctx.redisPrefix}rl:{ip:`.length).replace(/\}:\d+$/, ''));
  /** The limit counts per Redis-clock minute: start a burst well inside one, so it is not split. */
  const startOfBurst = async () => {
    const [seconds] = await h.ctx.redis.time();
    const intoMinute = Number(seconds) % 60;
    if (intoMinute > 50) await new Promise((r) => setTimeout(r, (61 - intoMinute) * 1000));
  };
  return { post, countedAddresses, startOfBurst };
}

t.test('TRUST_PROXY=127.0.0.1: each client behind the proxy has its own limit', async (t) => {
  const { post, countedAddresses, startOfBurst } = await setUp(t, { TRUST_PROXY: '127.0.0.1' });
  const statuses: number[] = [];
  await startOfBurst();
  // The client wrote its own X-Forwarded-For entry; the proxy appended the real address.
  for (let i = 0; i <= PER_ADDRESS_PER_MINUTE; i++) statuses.push((await post(`10.9.9.${i}, 203.0.113.5`)).status);
  t.same(statuses, [...Array(PER_ADDRESS_PER_MINUTE).fill(404), 429], 'a forged leftmost entry does not dodge the limit');
  t.equal((await post('203.0.113.6')).status, 404, 'another client behind the same proxy is not limited');
  t.same((await countedAddresses()).sort(), ['203.0.113.5', '203.0.113.6'], 'counted by client address, never the proxy (127.0.0.1)');
});

t.test('without TRUST_PROXY: X-Forwarded-For is ignored', async (t) => {
  const { post, countedAddresses, startOfBurst } = await setUp(t, {});
  const statuses: number[] = [];
  await startOfBurst();
  for (let i = 0; i <= PER_ADDRESS_PER_MINUTE; i++) statuses.push((await post(`203.0.113.${i}`)).status);
  t.same(statuses, [...Array(PER_ADDRESS_PER_MINUTE).fill(404), 429], 'a new forged address each time still hits the limit');
  t.same(await countedAddresses(), ['127.0.0.1']);
});
