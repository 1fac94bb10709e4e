import { chmod, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { isPrivateAddress, outboundUrlProblem } from '../../src/providers/url.js';
import { verifyLocal } from '../../src/providers/verify/local.js';
import { verifyOpenAI } from '../../src/providers/verify/openai.js';
import { startFakeOpenAI } from '../fakes/providers/openai.js';
import { startSilentFake } from '../fakes/providers/server.js';

// The production default: no private, loopback or plain-http base_url.
const h = await startHarness({ env: { ALLOW_PRIVATE_URLS: '0' } });
t.teardown(h.close);
const a = await createTenant(h);
const KEY = 'sk-proj-PRIVATEprivate4321';

t.test('base_url must be a public https address', async (t) => {
  const cases: [string, string][] = [
    ['http://api.example.com', 'base_url must use https'],
    ['https://127.0.0.1:8443', 'base_url must not point at a private, loopback or link-local address'],
    ['https://10.1.2.3', 'base_url must not point at a private, loopback or link-local address'],
    ['https://169.254.169.254', 'base_url must not point at a private, loopback or link-local address'],
    ['https://[::1]:8443', 'base_url must not point at a private, loopback or link-local address'],
    ['https://[::ffff:192.168.0.1]', 'base_url must not point at a private, loopback or link-local address'],
    ['https://localhost:8443', 'base_url must not point at a private, loopback or link-local address'],
    ['https://user:pw@api.example.com', 'base_url must not contain credentials'],
  ];
  for (const [baseUrl, msg] of cases) {
    const res = await h.app.inject({
      method: 'POST',
      url: `/console/v2/projects/${a.projectId}/provider-accounts`,
      headers: a.bearer,
      payload: { provider: 'openai', label: 'x', credentials: { api_key: KEY }, base_url: baseUrl },
    });
    t.equal(res.statusCode, 422, baseUrl);
    t.same(res.json().detail, [{ loc: ['body', 'base_url'], msg, type: 'value_error' }], baseUrl);
  }
  const ok = await h.app.inject({
    method: 'POST',
    url: `/console/v2/projects/${a.projectId}/provider-accounts`,
    headers: a.bearer,
    payload: { provider: 'openai', label: 'regional', credentials: { api_key: KEY }, base_url: 'https://eu.api.openai.com' },
  });
  t.equal(ok.statusCode, 201);
  const patched = await h.app.inject({
    method: 'PATCH',
    url: `/console/v2/projects/${a.projectId}/provider-accounts/${ok.json().id}`,
    headers: a.bearer,
    payload: { base_url: 'https://192.168.1.10' },
  });
  t.equal(patched.statusCode, 422);
  t.same(patched.json().detail[0].loc, ['body', 'base_url']);
});

t.test('verification does not connect to a private address when they are not allowed', async (t) => {
  const fake = await startFakeOpenAI(KEY);
  t.teardown(fake.close);
  const refused = await verifyOpenAI({ apiKey: KEY, baseUrl: fake.url, allowPrivate: false });
  t.same(refused, { status: 'invalid', detail: `${new URL(fake.url).host} is a private address, which is not allowed` });
  t.equal(fake.requests.length, 0);
  // A name is checked on the addresses the connection would use.
  const byName = `http://localhost:${new URL(fake.url).port}`;
  t.same(await verifyOpenAI({ apiKey: KEY, baseUrl: byName, allowPrivate: false }), {
    status: 'invalid',
    detail: `localhost:${new URL(fake.url).port} resolves to a private address, which is not allowed`,
  });
  t.equal(fake.requests.length, 0);
  const allowed = await verifyOpenAI({ apiKey: KEY, baseUrl: fake.url, allowPrivate: true });
  t.same(allowed, { status: 'verified', detail: null });
});

t.test('verification gives up after its timeout', async (t) => {
  const silent = await startSilentFake();
  t.teardown(silent.close);
  const started = Date.now();
  const res = await verifyOpenAI({ apiKey: KEY, baseUrl: silent.url, allowPrivate: true, timeoutMs: 300 });
  t.same(res, { status: 'invalid', detail: `${new URL(silent.url).host} did not answer within 0.3 s` });
  t.ok(Date.now() - started < 3000);
});

t.test('private address ranges', async (t) => {
  for (const ip of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '100.64.0.1', '169.254.1.1', '0.0.0.0', '224.0.0.1', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:a00:1::', '::ffff:8.8.8.8']) {
    t.ok(isPrivateAddress(ip), ip);
  }
  // IPv4-mapped IPv6 literals are refused outright (one policy with webhook deliveries), public or not.
  for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) t.notOk(isPrivateAddress(ip), ip);
  t.equal(outboundUrlProblem('https://hooks.example.com/x?token=1', false, { allowQuery: true }), null);
  t.equal(outboundUrlProblem('http://127.0.0.1:9/x', true), null);
  t.equal(outboundUrlProblem('not a url', true), 'must be an absolute URL');
});

t.test('local engines: verified only when espeak-ng, pocketsphinx and its model are installed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'local-engines-'));
  const bin = join(dir, 'bin');
  const model = join(dir, 'model');
  await mkdir(bin);
  const tool = async (name: string) => {
    await writeFile(join(bin, name), '#!/bin/sh\nexit 0\n');
    await chmod(join(bin, name), 0o755);
  };
  const none = await verifyLocal({ searchPath: [bin], modelDirs: [model] });
  t.equal(none.status, 'invalid');
  t.match(none.detail, /espeak-ng .*is not installed; pocketsphinx .*is not installed/);
  await tool('espeak-ng');
  await tool('pocketsphinx_continuous');
  const noModel = await verifyLocal({ searchPath: [bin], modelDirs: [model] });
  t.same(noModel, { status: 'invalid', detail: 'the PocketSphinx US English model (Debian package pocketsphinx-en-us) is not installed' });
  await mkdir(join(model, 'en-us'), { recursive: true });
  for (const f of ['en-us/mdef', 'en-us.lm.bin', 'cmudict-en-us.dict']) await writeFile(join(model, f), 'x');
  t.same(await verifyLocal({ searchPath: [bin], modelDirs: [model] }), { status: 'verified', detail: null });
  // A file that is not executable does not count.
  await chmod(join(bin, 'espeak-ng'), 0o644);
  t.match((await verifyLocal({ searchPath: [bin], modelDirs: [model] })).detail, /^espeak-ng .*is not installed$/);
});
