import t from 'tap';
import { createProviderAccount } from '../../src/db/repos/provider-accounts.js';
import { markAccountInvalid } from '../../src/providers/accounts.js';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';

// A key the provider refuses during a call marks its account `invalid` (new sessions are then
// refused until the customer fixes it), but never overrides a newer state of the account.

const h = await startHarness({ app: false });
t.teardown(() => h.close());

t.test('a verified account becomes invalid with the detail; other states are left alone', async (t) => {
  const { projectId } = await createTenant(h);
  const make = async (status: string) => {
    const a = await createProviderAccount(h.ctx, projectId, { provider: 'openai', label: status, apiKey: 'sk-test-0000', baseUrl: null });
    await h.ctx.sql`update provider_accounts set status = ${status} where id = ${a.id}`;
    return a.id;
  };
  const verified = await make('verified');
  const unverified = await make('unverified');
  t.equal(await markAccountInvalid(h.ctx, verified, 'OpenAI Realtime rejected the API key (HTTP 401, invalid_api_key)'), true);
  t.equal(await markAccountInvalid(h.ctx, verified, 'again'), false, 'already invalid');
  t.equal(await markAccountInvalid(h.ctx, unverified, 'stale call'), false, 'changed meanwhile: not touched');
  const rows = await h.ctx.sql<{ id: string; status: string; status_detail: string | null }[]>`
    select id, status, status_detail from provider_accounts where project_id = ${projectId}`;
  const by = new Map(rows.map((r) => [r.id, r]));
  t.same(by.get(verified), { id: verified, status: 'invalid', status_detail: 'OpenAI Realtime rejected the API key (HTTP 401, invalid_api_key)' });
  t.equal(by.get(unverified)!.status, 'unverified');
  t.equal(await markAccountInvalid(h.ctx, '00000000-0000-4000-8000-000000000000', 'x'), false, 'unknown account: no error');
});
