import t from 'tap';
import { AuthenticationError, ConsoleClient, VoiceClient, toArray } from '../../packages/sdk/src/index.js';
import { fundedTenant, localAgentBody, startService } from './service.js';

// ConsoleClient against the real service: it logs in, refreshes its tokens itself (before
// expiry and once on a 401), signs in again when its refresh token is spent, and reaches every
// console resource of a project.

const svc = await startService();
t.teardown(() => svc.close());
const tenant = await fundedTenant(svc.h);

t.test('login, projects and the project resources', async (t) => {
  const console_ = await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password });
  t.equal(console_.session?.token_type, 'bearer');
  const projects = await toArray(console_.projects.list());
  t.same(projects.map((p) => p.id), [tenant.projectId]);
  const made = await console_.projects.create({ name: 'second' });
  t.equal((await console_.projects.update(made.id, { name: 'renamed' })).name, 'renamed');
  t.equal((await console_.projects.get(made.id)).name, 'renamed');

  const p = console_.project(tenant.projectId);
  const key = await p.apiKeys.create({ name: 'ci', scopes: ['voice:read', 'voice:write'] });
  t.match(key.key, /^vk_/);
  const machine = new VoiceClient({ apiKey: key.key, baseUrl: svc.baseUrl });
  const agent = await machine.agents.create(localAgentBody(tenant.localAccountId));
  t.same((await toArray(p.agents.list())).map((a) => a.id), [agent.agent.id], 'both doors see one agent');
  t.equal((await p.agents.get(agent.agent.id)).id, agent.agent.id);

  const pk = await p.publishableKeys.create({ name: 'site', origins: ['https://shop.example.com'], agent_ids: [agent.agent.id] });
  t.match(pk.key, /^pk_/);
  t.equal((await toArray(p.publishableKeys.list())).length, 1);
  t.not((await p.publishableKeys.rotate(pk.id)).key, pk.key);

  const accounts = await toArray(p.providerAccounts.list());
  t.same(accounts.map((a) => a.provider), ['local']);
  const wallet = await p.wallet.get();
  t.equal(wallet.balance_nano_usd, '10000000000');
  t.same((await toArray(p.wallet.ledger())).map((e) => e.kind), ['credit']);
  t.same(await toArray(p.carriers.list()), []);
  t.ok((await console_.catalogue()).some((c) => c.provider === 'local'));

  await p.apiKeys.revoke(key.id);
  const revoked = await toArray(machine.agents.list()).catch((e: unknown) => e);
  t.ok(revoked instanceof AuthenticationError, 'a revoked key answers 401');
});

t.test('a rejected access token is refreshed once, and the old refresh token stops working', async (t) => {
  const first = await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password });
  const pair = first.session!;
  // A client holding a bad access token but a good refresh token, and no password.
  const client = new ConsoleClient({ baseUrl: svc.baseUrl, tokens: { ...pair, access_token: 'not-a-token' } });
  t.equal((await toArray(client.projects.list())).length, 2);
  t.not(client.session!.refresh_token, pair.refresh_token, 'rotated');
  t.not(client.session!.access_token, 'not-a-token');

  // The spent refresh token is refused (and revokes its family, contract §2).
  const reuse = new ConsoleClient({ baseUrl: svc.baseUrl, tokens: { ...pair, access_token: 'not-a-token' } });
  const err = await toArray(reuse.projects.list()).catch((e: unknown) => e);
  t.ok(err instanceof AuthenticationError, 'no password: the 401 surfaces');
});

t.test('with the password it signs in again when refreshing fails; near expiry it refreshes first', async (t) => {
  const client = await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password });
  const spent = client.session!;
  await client.logout();
  // Logged out: tokens revoked. A client with those tokens and the password recovers by signing in.
  const again = new ConsoleClient({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password, tokens: spent });
  t.equal((await toArray(again.projects.list())).length, 2);
  t.not(again.session!.access_token, spent.access_token);

  // expires_in 0: the client refreshes before sending, so the request never meets a 401.
  const fresh = (await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: tenant.password })).session!;
  const early = new ConsoleClient({ baseUrl: svc.baseUrl, tokens: { ...fresh, expires_in: 0 } });
  await toArray(early.projects.list());
  t.not(early.session!.refresh_token, fresh.refresh_token, 'refreshed ahead of expiry');

  const wrong = await ConsoleClient.login({ baseUrl: svc.baseUrl, email: tenant.email, password: 'wrong password 123' }).catch((e: unknown) => e);
  t.ok(wrong instanceof AuthenticationError);
});
