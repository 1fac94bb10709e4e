import { randomBytes } from 'node:crypto';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { reencryptAll } from '../../src/cli/reencrypt.js';
import { createProviderAccount, getProviderApiKey } from '../../src/db/repos/provider-accounts.js';
import { getAgentWebhookSecret } from '../../src/db/repos/agents.js';
import { getCarrierCredentials } from '../../src/db/repos/carriers.js';
import { startFakeOpenAI } from '../fakes/providers/openai.js';

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const KEY = 'sk-proj-ROTATErotate5555';
const fake = await startFakeOpenAI(KEY);
t.teardown(fake.close);

const oldKey = { id: 'old', key: randomBytes(32) };
const newKey = { id: 'new', key: randomBytes(32) };

t.test('secrets sealed under the old key are re-sealed under the new first key', async (t) => {
  h.ctx.keyring = new Keyring([oldKey]);
  const base = `/console/v2/projects/${a.projectId}/provider-accounts`;
  const acct = (await h.app.inject({ method: 'POST', url: base, headers: a.bearer, payload: { provider: 'openai', label: 'o', credentials: { api_key: KEY }, base_url: fake.url } })).json();
  t.equal((await h.app.inject({ method: 'POST', url: `${base}/${acct.id}/verify`, headers: a.bearer })).json().status, 'verified');
  await h.app.inject({ method: 'POST', url: base, headers: a.bearer, payload: { provider: 'local', label: 'no key' } });
  const created = (await h.app.inject({
    method: 'POST',
    url: '/v2/agents',
    headers: a.machine,
    payload: { name: 'rot', prompt: 'x', pipeline_mode: 'realtime', pipeline_config: { realtime: { account_id: acct.id, model: 'gpt-realtime', voice: 'marin' } } },
  })).json();
  const endpoint = (await h.app.inject({ method: 'POST', url: `/v2/projects/${a.projectId}/webhooks`, headers: a.machine, payload: { name: 'e', url: 'https://hooks.example.com/x' } })).json();
  const twilio = { account_sid: `AC${'ab'.repeat(16)}`, auth_token: 'twilio-token-rotate-1' };
  const carrier = (await h.app.inject({ method: 'POST', url: `/console/v2/projects/${a.projectId}/carriers`, headers: a.bearer, payload: { kind: 'twilio', label: 'c', credentials: twilio } })).json();
  // Enough rows for several batches.
  for (let i = 0; i < 150; i++) await createProviderAccount(h.ctx, a.projectId, { provider: 'deepgram', label: `bulk ${i}`, apiKey: `dg-bulk-key-${i}`, baseUrl: null });

  // Rotation step 1: the new key goes first, the old one stays to decrypt.
  h.ctx.keyring = new Keyring([newKey, oldKey]);
  t.equal(await getProviderApiKey(h.ctx, acct.id), KEY, 'old ciphertext still decrypts');
  const counts = await reencryptAll(h.ctx);
  t.same(counts, { provider_accounts: 151, agents: 1, webhook_endpoints: 1, carriers: 1 });
  const ids = await h.ctx.sql`
    select split_part(credentials_sealed, ':', 1) as key_id, count(*)::int as n from provider_accounts
    where credentials_sealed is not null group by 1`;
  t.same(ids.map((r) => ({ ...r })), [{ key_id: 'new', n: 151 }]);
  const [agentKey] = await h.ctx.sql`select split_part(webhook_secret_sealed, ':', 1) as key_id from agents where id = ${created.agent.id}`;
  t.equal(agentKey.key_id, 'new');

  // Rotation step 2: the old key can go; everything still decrypts.
  h.ctx.keyring = new Keyring([newKey]);
  t.equal(await getProviderApiKey(h.ctx, acct.id), KEY);
  t.equal(await getProviderApiKey(h.ctx, (await h.ctx.sql`select id from provider_accounts where label = 'bulk 7'`)[0].id), 'dg-bulk-key-7');
  t.equal(await getAgentWebhookSecret(h.ctx, created.agent.id), created.webhook_secret);
  const [endpointRow] = await h.ctx.sql`select secret_sealed from webhook_endpoints where id = ${endpoint.id}`;
  t.equal(h.ctx.keyring.decrypt(endpointRow.secret_sealed, endpoint.id), endpoint.signing_secret);
  t.same(await getCarrierCredentials(h.ctx, carrier.id), twilio);
  t.same(await reencryptAll(h.ctx), { provider_accounts: 0, agents: 0, webhook_endpoints: 0, carriers: 0 }, 'a second run has nothing to do');
  const verify = await h.app.inject({ method: 'POST', url: `${base}/${acct.id}/verify`, headers: a.bearer });
  t.equal(verify.json().status, 'verified', 'the account works under the new key');
});

t.test('a ciphertext under a key the keyring lacks is an error, not a silent skip', async (t) => {
  h.ctx.keyring = new Keyring([oldKey]);
  await createProviderAccount(h.ctx, a.projectId, { provider: 'openai', label: 'orphan', apiKey: 'sk-orphan-123456', baseUrl: null });
  h.ctx.keyring = new Keyring([{ id: 'third', key: randomBytes(32) }, newKey]);
  await t.rejects(reencryptAll(h.ctx), /not in the keyring/);
});
