import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';

// The admin command line runs as operators run it: a separate process, JSON on stdout.
const run = promisify(execFile);
const h = await startHarness();
t.teardown(h.close);
const env = { ...process.env, DATABASE_URL: h.ctx.config.DATABASE_URL, KEYRING: `k1:${Buffer.alloc(32, 7).toString('base64')}`, LOG_LEVEL: 'silent' };
const admin = (...args: string[]) => run(process.execPath, ['--import=tsx', 'src/cli/admin.ts', ...args], { env });

t.test('account, project, key and limits from the command line', async (t) => {
  const email = 'ops@example.com';
  const created = JSON.parse((await admin('create-account', '--email', email, '--password', 'a long password 123')).stdout);
  t.match(created.account_id, /^[0-9a-f-]{36}$/);
  const verified = JSON.parse((await admin('verify-email', '--email', email)).stdout);
  t.equal(verified.account_id, created.account_id);
  const project = JSON.parse((await admin('create-project', '--email', email, '--name', 'ops')).stdout);
  const key = JSON.parse((await admin('create-api-key', '--project-id', project.project_id, '--scopes', 'voice:read,webhook:read')).stdout);
  t.match(key.key, /^vk_[0-9A-Za-z]{43}$/);
  const res = await h.app.inject({ method: 'GET', url: '/v2/agents', headers: { 'x-api-key': key.key } });
  t.equal(res.statusCode, 200, 'the key works on the machine door');
  const limits = JSON.parse((await admin('set-limits', '--project-id', project.project_id, '--api-rpm', '5', '--max-concurrent-sessions', '3')).stdout);
  t.same({ rpm: limits.api_rpm, max: limits.max_concurrent_sessions, revision: limits.revision }, { rpm: 5, max: 3, revision: 2 });
  const credit = JSON.parse((await admin('wallet-credit', '--project-id', project.project_id, '--nano-usd', '2500000000')).stdout);
  t.same(credit, { balance_nano_usd: '2500000000' });
  const more = JSON.parse((await admin('wallet-credit', '--project-id', project.project_id, '--nano-usd', '1')).stdout);
  t.same(more, { balance_nano_usd: '2500000001' }, 'credits add up exactly');
  const sealed = JSON.parse((await admin('reencrypt-secrets')).stdout);
  t.equal(sealed.key_id, 'k1');
  JSON.parse((await admin('suspend-account', '--email', email)).stdout);
  const [row] = await h.ctx.sql`select suspended from accounts where id = ${created.account_id}`;
  t.equal(row.suspended, true);
  await admin('unsuspend-account', '--email', email);
  const [again] = await h.ctx.sql`select suspended from accounts where id = ${created.account_id}`;
  t.equal(again.suspended, false);
});

t.test('errors exit non-zero with a message on stderr', async (t) => {
  await t.rejects(admin('create-api-key', '--project-id', 'nope', '--scopes', 'voice:read'), { code: 1, stderr: /--project-id must be a uuid/ });
  await t.rejects(admin('create-project', '--email', 'nobody@example.com', '--name', 'x'), { code: 1, stderr: /account not found/ });
  await t.rejects(admin('bogus'), { code: 2, stderr: /usage/ });
  await t.rejects(admin('wallet-credit', '--project-id', '00000000-0000-4000-8000-000000000000', '--nano-usd', '1.5'), { code: 1, stderr: /positive whole number/ });
  await t.rejects(admin('wallet-credit', '--project-id', '00000000-0000-4000-8000-000000000000', '--nano-usd', '5'), { code: 1, stderr: /project not found/ });
  await t.rejects(admin('create-api-key', '--project-id', '00000000-0000-4000-8000-000000000000', '--scopes', 'voice:fly'), { code: 1, stderr: /unknown scope voice:fly/ });
});
