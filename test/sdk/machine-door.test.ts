import t from 'tap';
import {
  AuthenticationError,
  ConflictError,
  MediaCloseError,
  NotFoundError,
  PaymentRequiredError,
  RateLimitError,
  ValidationError,
  VoiceClient,
  toArray,
} from '../../packages/sdk/src/index.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { createTenant } from '../helpers/fixtures.js';
import { fundedTenant, localAgentBody, startService } from './service.js';

// VoiceClient against the real service: every machine-door resource, the error classes with
// the server's request id, list iteration over limit/offset, and the media helper on a real socket.

const svc = await startService();
t.teardown(() => svc.close());
const tenant = await fundedTenant(svc.h);
const client = new VoiceClient({ apiKey: tenant.apiKey, baseUrl: svc.baseUrl });

t.test('agents: create, get, update, iterate pages, delete, rotate', async (t) => {
  const created = await client.agents.create(localAgentBody(tenant.localAccountId, { name: 'agent 0' }));
  t.match(created.webhook_secret, /^whsec_/);
  const ids = [created.agent.id];
  for (let i = 1; i < 5; i++) ids.push((await client.agents.create(localAgentBody(tenant.localAccountId, { name: `agent ${i}` }))).agent.id);

  const got = await client.agents.get(ids[0]);
  t.equal(got.name, 'agent 0');
  const updated = await client.agents.update(ids[0], { greeting: 'Hi there.' });
  t.equal(updated.version, got.version + 1, 'version increments');
  t.equal(updated.greeting, 'Hi there.');

  // Pages of 2 over 5 agents: three requests, newest first, none twice.
  const listed = await toArray(client.agents.list({ pageSize: 2 }));
  t.same(listed.map((a) => a.id), [...ids].reverse());
  t.same((await toArray(client.agents.list({ pageSize: 2, max: 3 }))).length, 3, 'max stops early');
  t.same((await toArray(client.agents.list({ offset: 4 }))).map((a) => a.id), [ids[0]], 'offset');

  const v1 = await client.agents.version(ids[0], 1);
  t.equal(v1.name, 'agent 0');
  const rotated = await client.agents.rotateSecret(ids[1]);
  t.not(rotated.webhook_secret, created.webhook_secret);

  const deleted = await client.agents.delete(ids[4]);
  t.equal(deleted.calls, 0);
  t.notOk((await toArray(client.agents.list())).some((a) => a.id === ids[4]), 'inactive agents are left out');
  t.ok((await toArray(client.agents.list({ includeInactive: true }))).some((a) => a.id === ids[4]), 'includeInactive lists them');
  const conflict = await client.agents.delete(ids[4]).catch((e: unknown) => e);
  t.ok(conflict instanceof ConflictError, '409 → ConflictError');
});

t.test('error classes carry status, detail and the request id', async (t) => {
  const missing = await client.agents.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
  t.ok(missing instanceof NotFoundError);
  const nf = missing as NotFoundError;
  t.equal(nf.status, 404);
  t.equal(nf.detail, 'agent not found');
  t.match(nf.requestId, /^[0-9a-f-]{36}$/, 'x-request-id of the answer');

  const invalid = await client.agents.create({ ...localAgentBody(tenant.localAccountId), dead_air_seconds: 0 }).catch((e: unknown) => e);
  t.ok(invalid instanceof ValidationError);
  t.same((invalid as ValidationError).errors.map((e) => e.loc), [['body', 'dead_air_seconds']], 'field errors');

  const badKey = new VoiceClient({ apiKey: 'vk_notakey', baseUrl: svc.baseUrl });
  const unauth = await toArray(badKey.agents.list()).catch((e: unknown) => e);
  t.ok(unauth instanceof AuthenticationError);
  t.equal((unauth as AuthenticationError).status, 401);
  t.equal((unauth as AuthenticationError).detail, 'invalid API key');

  const readOnly = await createTenant(svc.h, ['voice:read']);
  const ro = new VoiceClient({ apiKey: readOnly.apiKey, baseUrl: svc.baseUrl });
  const forbidden = await ro.agents.create(localAgentBody(tenant.localAccountId)).catch((e: unknown) => e);
  t.ok(forbidden instanceof AuthenticationError, '403 → AuthenticationError');
  t.equal((forbidden as AuthenticationError).status, 403);
});

t.test('402 and 429 map to their classes; RateLimitError has retryAfter', async (t) => {
  const poor = await fundedTenant(svc.h, 0n);
  const poorClient = new VoiceClient({ apiKey: poor.apiKey, baseUrl: svc.baseUrl, maxRetries: 0 });
  const agent = await poorClient.agents.create(localAgentBody(poor.localAccountId));
  const payment = await poorClient.sessions.create({ agent_id: agent.agent.id }).catch((e: unknown) => e);
  t.ok(payment instanceof PaymentRequiredError, 'empty wallet → PaymentRequiredError');
  t.equal((payment as PaymentRequiredError).status, 402);

  await setProjectLimits(svc.h.ctx, poor.projectId, { api_rpm: 2 });
  await new Promise((r) => setTimeout(r, 1100));
  let limited: unknown = null;
  for (let i = 0; i < 5 && !limited; i++) limited = await poorClient.agents.get(agent.agent.id).then(() => null, (e: unknown) => e);
  t.ok(limited instanceof RateLimitError, '429 → RateLimitError');
  t.ok((limited as RateLimitError).retryAfter! > 0, `retryAfter ${(limited as RateLimitError).retryAfter}`);
});

t.test('sessions: create, media round trip, hang up, get, list filters', async (t) => {
  const agent = await client.agents.create(localAgentBody(tenant.localAccountId));
  const admitted = await client.sessions.create({ agent_id: agent.agent.id, sample_rate_out: 16000 });
  t.match(admitted.ws_url, /^ws:\/\//);

  const media = await client.connectMedia(admitted.ws_url);
  const frames: string[] = [];
  media.on('frame', (f) => frames.push(f.type));
  let audioSamples = 0;
  media.on('audio', (pcm) => (audioSamples += pcm.length));
  const tone = new Int16Array(320 * 25).map((_, i) => Math.round(8000 * Math.sin(i / 5)));
  for (let i = 0; i < 25; i++) media.sendAudio(tone.subarray(i * 320, (i + 1) * 320));
  await new Promise((r) => setTimeout(r, 800));
  t.ok(audioSamples > 0, `the echo pipeline sent audio back (${audioSamples} samples)`);

  // An odd-length message is answered with a typed `error` frame; the call goes on.
  const errorFrame = media.once('error');
  media.sendAudio(new Int16Array(0));
  (media as unknown as { ws: { send: (d: Uint8Array) => void } }).ws.send(new Uint8Array(3));
  t.match((await errorFrame).message, /even number of bytes/);

  const ended = media.once('session_ended');
  media.hangUp();
  t.equal((await ended).reason, 'caller_hangup');
  const close = await media.closed;
  t.equal(close.code, 1000);
  t.equal(close.error, null);

  // The ws_url is single use: a second connect is refused with 4401, as a typed error.
  const again = await (await client.connectMedia(admitted.ws_url)).done().catch((e: unknown) => e);
  t.ok(again instanceof MediaCloseError, 'refusal → MediaCloseError');
  t.equal((again as MediaCloseError).code, 4401);
  t.equal((again as MediaCloseError).closeName, 'bad_token');

  let session = await client.sessions.get(admitted.session.id);
  for (let i = 0; i < 50 && session.status !== 'completed'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    session = await client.sessions.get(admitted.session.id);
  }
  t.equal(session.status, 'completed');
  t.equal(session.end_reason, 'caller_hangup');
  // The echo pipeline stores no transcript: the transcript route says so (contract §11).
  const transcript = await client.sessions.transcript(admitted.session.id).catch((e: unknown) => e);
  t.ok(transcript instanceof NotFoundError);
  t.match((transcript as NotFoundError).detail, /^transcript (not stored|removed by retention)$/);
  const completed = await toArray(client.sessions.list({ status: 'completed', agent_id: agent.agent.id }));
  t.same(completed.map((s) => s.id), [admitted.session.id]);
  t.same(await toArray(client.sessions.list({ status: 'failed', agent_id: agent.agent.id })), []);
});

t.test('webhook endpoints and the catalogue', async (t) => {
  const hooks = client.webhooks(tenant.projectId);
  const created = await hooks.create({ name: 'ops', url: 'https://hooks.example.com/voice', event_types: ['call.completed'] });
  t.match(created.signing_secret, /^whsec_/);
  t.same((await toArray(hooks.list())).map((e) => e.id), [created.id]);
  const ping = await hooks.test(created.id);
  t.ok(ping.delivery_id);
  t.same(await hooks.deadLetters({ limit: 10 }), []);
  const edited = await hooks.update(created.id, { name: 'ops 2', event_types: ['call.failed'] });
  t.same([edited.id, edited.name, edited.event_types, edited.revision], [created.id, 'ops 2', ['call.failed'], created.revision + 1]);
  const refused = await hooks.update(created.id, { url: 'ftp://hooks.example.com/x' }).catch((e: unknown) => e);
  t.ok(refused instanceof ValidationError && refused.status === 422, 'a bad URL is a ValidationError');
  const disabled = await hooks.disable(created.id);
  t.equal(disabled.status, 'disabled');
  t.same(await toArray(hooks.list()), []);
  t.equal((await toArray(hooks.list({ includeDisabled: true }))).length, 1);
  t.equal((await hooks.update(created.id, { status: 'active' })).status, 'active', 'enabled again');
  t.equal((await hooks.disable(created.id)).status, 'disabled');
  const other = await client.webhooks('00000000-0000-4000-8000-000000000000').create({ name: 'x', url: 'https://hooks.example.com/x' }).catch((e: unknown) => e);
  t.ok(other instanceof NotFoundError, "another project's path answers 404");

  const catalogue = await client.catalogue();
  t.ok(catalogue.some((c) => c.provider === 'local'));
});
