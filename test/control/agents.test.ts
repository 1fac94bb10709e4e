import tap from 'tap';
const t = tap;
import { startHarness } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';
import { getAgentWebhookSecret, loadAgentForSession } from '../../src/db/repos/agents.js';
import { startFakeOpenAI } from '../fakes/providers/openai.js';
import { startFakeAnthropic } from '../fakes/providers/anthropic.js';
import { startFakeDeepgram } from '../fakes/providers/deepgram.js';
import { startFakeElevenLabs } from '../fakes/providers/elevenlabs.js';
import { inlineRefs } from '../openapi/inline-refs.js';

const h = await startHarness();
t.teardown(h.close);
const a = await createTenant(h);
const b = await createTenant(h);
const readOnly = await createTenant(h, ['voice:read']);
const webhookOnly = await createTenant(h, ['webhook:read']);

const KEYS = { openai: 'sk-proj-AGENTSagents1111', anthropic: 'sk-ant-AGENTSagents2222', deepgram: 'dgAGENTSagents3333', elevenlabs: 'skAGENTSagents4444' };
const fakes = {
  openai: await startFakeOpenAI(KEYS.openai),
  anthropic: await startFakeAnthropic(KEYS.anthropic),
  deepgram: await startFakeDeepgram(KEYS.deepgram),
  elevenlabs: await startFakeElevenLabs(KEYS.elevenlabs),
};
t.teardown(() => Promise.all(Object.values(fakes).map((f) => f.close())));

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
const call = (method: Method, url: string, headers: Record<string, string>, payload?: unknown) =>
  h.app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });

async function account(tenant: Tenant, provider: keyof typeof KEYS, opts: { verify?: boolean } = {}): Promise<string> {
  const base = `/console/v2/projects/${tenant.projectId}/provider-accounts`;
  const res = await call('POST', base, tenant.bearer, { provider, label: provider, credentials: { api_key: KEYS[provider] }, base_url: fakes[provider].url });
  const id = res.json().id as string;
  if (opts.verify !== false) {
    const v = await call('POST', `${base}/${id}/verify`, tenant.bearer);
    if (v.json().status !== 'verified') throw new Error(`could not verify ${provider}: ${v.body}`);
  }
  return id;
}

const acc = {
  openai: await account(a, 'openai'),
  anthropic: await account(a, 'anthropic'),
  deepgram: await account(a, 'deepgram'),
  elevenlabs: await account(a, 'elevenlabs'),
  unverified: await account(a, 'openai', { verify: false }),
  otherTenant: await account(b, 'openai'),
};

const cascade = () => ({
  stt: { account_id: acc.deepgram, model: 'nova-3', language: 'en-US', endpointing_ms: 300 },
  llm: { account_id: acc.anthropic, model: 'claude-sonnet-4-6', temperature: 0.4, max_tokens: 400 },
  tts: { account_id: acc.elevenlabs, model: 'eleven_flash_v2_5', voice: 'Rachel', speed: 1.1 },
});
const minimal = (extra: Record<string, unknown> = {}) => ({ name: 'Support', prompt: 'Hello {{customer}}', pipeline_mode: 'cascade', pipeline_config: cascade(), ...extra });
const create = (payload: unknown, headers: Record<string, string> = a.machine) => call('POST', '/v2/agents', headers, payload);
const consoleBase = (tenant: Tenant) => `/console/v2/projects/${tenant.projectId}/agents`;

function expect422(t: Pick<typeof tap, 'equal' | 'ok' | 'match'>, res: { statusCode: number; json: () => { detail: { loc: unknown; msg: string }[] } }, loc: (string | number)[], msg?: string | RegExp) {
  t.equal(res.statusCode, 422, JSON.stringify(loc));
  const detail = res.json().detail;
  const hit = Array.isArray(detail) ? detail.find((d) => JSON.stringify(d.loc) === JSON.stringify(loc)) : undefined;
  t.ok(hit, `loc ${JSON.stringify(loc)} in ${JSON.stringify(detail)}`);
  if (hit && msg) t.match(hit.msg, msg);
}

t.test('create on the machine door: every field, the defaults, the secret once', async (t) => {
  const res = await create(minimal());
  t.equal(res.statusCode, 201);
  const { agent, webhook_secret } = res.json();
  t.match(webhook_secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.same(Object.keys(res.json()).sort(), ['agent', 'webhook_secret']);
  t.match(agent.id, /^[0-9a-f-]{36}$/);
  t.same({ ...agent, id: undefined, created_at: undefined, updated_at: undefined }, {
    id: undefined,
    project_id: a.projectId,
    name: 'Support',
    display_name: null,
    prompt: 'Hello {{customer}}',
    greeting: null,
    language: 'en-IN',
    pipeline_mode: 'cascade',
    pipeline_config: cascade(),
    tools: [],
    tool_webhook_url: null,
    variables: [],
    backchannel: true,
    interruptible_greeting: true,
    can_send_dtmf: false,
    ambience_level: null,
    ambience_sound: null,
    dead_air_seconds: null,
    idle_warn_seconds: null,
    idle_hangup_seconds: null,
    max_duration_seconds: null,
    max_chars_per_min: null,
    record_calls: false,
    store_transcript: false,
    retention_days: null,
    insight_config: null,
    transfer_destinations: [],
    transfer_timeout_seconds: null,
    voicemail: null,
    webhook_url: null,
    webhook_include_transcript: false,
    webhook_include_recording_url: false,
    has_webhook_secret: true,
    is_active: true,
    version: 1,
    created_at: undefined,
    updated_at: undefined,
  });
  t.match(agent.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const [row] = await h.ctx.sql`select webhook_secret_sealed from agents where id = ${agent.id}`;
  t.notOk(row.webhook_secret_sealed.includes(webhook_secret.slice(6)));
  t.equal(await getAgentWebhookSecret(h.ctx, agent.id), webhook_secret);
  for (const url of [`/v2/agents/${agent.id}`, '/v2/agents', `/v2/agents/${agent.id}/versions/1`]) {
    const got = await call('GET', url, a.machine);
    t.equal(got.statusCode, 200, url);
    t.notOk(got.body.includes(webhook_secret), `${url} has no secret`);
    for (const key of Object.values(KEYS)) t.notOk(got.body.includes(key));
  }
});

t.test('create on the console door with every field set at its bounds', async (t) => {
  const full = {
    ...minimal(),
    name: 'n'.repeat(120),
    display_name: 'Ava',
    prompt: 'p'.repeat(32000),
    greeting: 'Hi {{customer}}!',
    language: 'hi-IN',
    tools: [{ type: 'function', name: 'lookup_order', description: 'Find an order', parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } }],
    tool_webhook_url: 'https://tools.example.com/hook?x=1',
    variables: [{ name: 'customer', required: true }, { name: '_opt' }],
    backchannel: false,
    interruptible_greeting: false,
    can_send_dtmf: true,
    ambience_level: 100,
    ambience_sound: 'office_hum',
    dead_air_seconds: 60,
    idle_warn_seconds: 600,
    idle_hangup_seconds: 3600,
    max_duration_seconds: 14400,
    max_chars_per_min: 20000,
    record_calls: true,
    store_transcript: true,
    retention_days: 90,
    insight_config: { summary: true, fields: ['intent'] },
    webhook_url: 'https://hooks.example.com/calls',
    webhook_include_transcript: true,
    webhook_include_recording_url: true,
  };
  const res = await call('POST', consoleBase(a), a.bearer, full);
  t.equal(res.statusCode, 201);
  const agent = res.json().agent;
  const { variables, ...rest } = full;
  t.match(agent, rest);
  t.same(agent.variables, [{ name: 'customer', required: true }, { name: '_opt', required: false }]);
  const low = await call('POST', consoleBase(a), a.bearer, minimal({ ambience_level: 0, dead_air_seconds: 1, idle_warn_seconds: 1, idle_hangup_seconds: 5, max_duration_seconds: 10, max_chars_per_min: 50, retention_days: 1 }));
  t.equal(low.statusCode, 201);
  const got = await call('GET', `${consoleBase(a)}/${agent.id}`, a.bearer);
  t.same(got.json(), agent, 'the console GET answers the same shape');
});

t.test('bounds and formats: 422 naming the field', async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ dead_air_seconds: 0 }, 'dead_air_seconds'], [{ dead_air_seconds: 61 }, 'dead_air_seconds'],
    [{ idle_warn_seconds: 0 }, 'idle_warn_seconds'], [{ idle_warn_seconds: 601 }, 'idle_warn_seconds'],
    [{ idle_hangup_seconds: 4 }, 'idle_hangup_seconds'], [{ idle_hangup_seconds: 3601 }, 'idle_hangup_seconds'],
    [{ max_duration_seconds: 9 }, 'max_duration_seconds'], [{ max_duration_seconds: 14401 }, 'max_duration_seconds'],
    [{ max_chars_per_min: 49 }, 'max_chars_per_min'], [{ max_chars_per_min: 20001 }, 'max_chars_per_min'],
    [{ retention_days: 0 }, 'retention_days'], [{ retention_days: 91 }, 'retention_days'],
    [{ ambience_level: -1 }, 'ambience_level'], [{ ambience_level: 101 }, 'ambience_level'], [{ ambience_level: 1.5 }, 'ambience_level'],
    [{ ambience_sound: 'rain' }, 'ambience_sound'],
    [{ name: '' }, 'name'], [{ name: 'x'.repeat(121) }, 'name'],
    [{ prompt: 'x'.repeat(32001) }, 'prompt'],
    [{ language: 'english please' }, 'language'],
    [{ pipeline_mode: 'hybrid' }, 'pipeline_mode'],
    [{ backchannel: 'yes' }, 'backchannel'],
    [{ interruptible_greeting: 'no' }, 'interruptible_greeting'], [{ interruptible_greeting: 0 }, 'interruptible_greeting'],
    [{ interruptible_greeting: null }, 'interruptible_greeting'],
    [{ webhook_url: 'ftp://hooks.example.com/x' }, 'webhook_url'],
    [{ tool_webhook_url: 'not a url at all' }, 'tool_webhook_url'],
    [{ is_active: false }, 'is_active'],
    [{ webhook_secret: 'whsec_mine' }, 'webhook_secret'],
  ];
  for (const [extra, field] of cases) expect422(t, await create(minimal(extra)), ['body', field]);
  expect422(t, await create(minimal({ idle_warn_seconds: 30, idle_hangup_seconds: 30 })), ['body', 'idle_hangup_seconds'], 'idle_hangup_seconds must be greater than idle_warn_seconds');
  // Text Postgres cannot store is the client's mistake, not a 500.
  expect422(t, await create(minimal({ name: 'a\u0000b' })), ['body', 'name'], 'text must not contain NUL characters or unpaired surrogates');
  const surrogate = await h.app.inject({
    method: 'POST',
    url: '/v2/agents',
    headers: { ...a.machine, 'content-type': 'application/json' },
    payload: JSON.stringify(minimal({ insight_config: { note: 'x' } })).replace('"note":"x"', '"note":"\\ud800"'),
  });
  expect422(t, surrogate as never, ['body', 'insight_config', 'note'], 'text must not contain NUL characters or unpaired surrogates');
  let deep: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < 40; i++) deep = { a: deep };
  const tooDeep = await create(minimal({ insight_config: deep }));
  t.equal(tooDeep.statusCode, 422);
  t.equal(tooDeep.json().detail[0].msg, 'nested more than 32 levels deep');
  for (const field of ['name', 'prompt', 'pipeline_mode', 'pipeline_config']) {
    const body: Record<string, unknown> = minimal();
    delete body[field];
    expect422(t, await create(body), ['body', field], field === 'pipeline_mode' ? undefined : 'field required');
  }
});

t.test('pipeline_config is strict for its mode; a stray key is named', async (t) => {
  const withStt = (stt: Record<string, unknown>) => minimal({ pipeline_config: { ...cascade(), stt } });
  expect422(t, await create(withStt({ ...cascade().stt, api_key: 'sk-plaintext' })), ['body', 'pipeline_config', 'stt', 'api_key'], 'unknown field');
  expect422(t, await create(minimal({ pipeline_config: { ...cascade(), vad: { threshold: 1 } } })), ['body', 'pipeline_config', 'vad'], 'unknown field');
  const { tts: _tts, ...noTts } = cascade();
  expect422(t, await create(minimal({ pipeline_config: noTts })), ['body', 'pipeline_config', 'tts'], 'field required');
  expect422(t, await create(withStt({ account_id: 'nope', model: 'nova-3' })), ['body', 'pipeline_config', 'stt', 'account_id']);
  expect422(t, await create(minimal({ pipeline_config: { ...cascade(), tts: { account_id: acc.elevenlabs, model: 'eleven_v3' } } })), ['body', 'pipeline_config', 'tts', 'voice'], 'field required');
  expect422(t, await create(minimal({ pipeline_config: { ...cascade(), llm: { ...cascade().llm, temperature: 3 } } })), ['body', 'pipeline_config', 'llm', 'temperature']);
  // realtime: exactly one realtime stage
  expect422(t, await create(minimal({ pipeline_mode: 'realtime' })), ['body', 'pipeline_config', 'stt'], 'unknown field');
  const rt = { realtime: { account_id: acc.openai, model: 'gpt-realtime', voice: 'marin' } };
  expect422(t, await create(minimal({ pipeline_mode: 'realtime', pipeline_config: { realtime: { ...rt.realtime, temperature: 1 } } })), ['body', 'pipeline_config', 'realtime', 'temperature']);
  expect422(t, await create(minimal({ pipeline_mode: 'cascade', pipeline_config: rt })), ['body', 'pipeline_config', 'realtime'], 'unknown field');
  const ok = await create(minimal({ pipeline_mode: 'realtime', pipeline_config: rt }));
  t.equal(ok.statusCode, 201);
  t.same(ok.json().agent.pipeline_config, rt);
});

t.test('each stage account must be in the project, verified, and offer the stage and model', async (t) => {
  const stage = (name: 'stt' | 'llm' | 'tts', patch: Record<string, unknown>) => minimal({ pipeline_config: { ...cascade(), [name]: { ...cascade()[name], ...patch } } });
  expect422(t, await create(stage('stt', { account_id: '00000000-0000-4000-8000-000000000000' })), ['body', 'pipeline_config', 'stt', 'account_id'], 'provider account not found in this project');
  expect422(t, await create(stage('llm', { account_id: acc.otherTenant, model: 'gpt-4.1' })), ['body', 'pipeline_config', 'llm', 'account_id'], 'provider account not found in this project');
  expect422(t, await create(stage('llm', { account_id: acc.unverified, model: 'gpt-4.1' })), ['body', 'pipeline_config', 'llm', 'account_id'], 'provider account is not verified (status unverified); verify it first');
  expect422(t, await create(stage('stt', { account_id: acc.elevenlabs })), ['body', 'pipeline_config', 'stt', 'account_id'], 'provider elevenlabs does not offer the stt stage (it offers tts)');
  expect422(t, await create(stage('llm', { model: 'gpt-4.1' })), ['body', 'pipeline_config', 'llm', 'model'], /provider anthropic offers no llm model "gpt-4.1"/);
  const twoBad = await create(minimal({ pipeline_config: { ...cascade(), stt: { ...cascade().stt, model: 'nova-0' }, tts: { ...cascade().tts, model: 'aura-9' } } }));
  t.same(twoBad.json().detail.map((d: { loc: unknown }) => d.loc), [['body', 'pipeline_config', 'stt', 'model'], ['body', 'pipeline_config', 'tts', 'model']], 'every problem is reported');
  // the same OpenAI account can serve all three stages
  const allOpenAI = await create(minimal({ pipeline_config: {
    stt: { account_id: acc.openai, model: 'gpt-4o-transcribe' },
    llm: { account_id: acc.openai.toUpperCase(), model: 'gpt-4.1-mini' },
    tts: { account_id: acc.openai, model: 'gpt-4o-mini-tts', voice: 'alloy' },
  } }));
  t.equal(allOpenAI.statusCode, 201);
  t.equal(allOpenAI.json().agent.pipeline_config.llm.account_id, acc.openai, 'account ids are stored in lower case');
});

t.test('interruptible_greeting and the realtime endpointing_ms: validated, versioned, documented', async (t) => {
  const rt = (extra: Record<string, unknown> = {}) => ({ realtime: { account_id: acc.openai, model: 'gpt-realtime', voice: 'marin', ...extra } });
  const realtime = (config: Record<string, unknown>, extra: Record<string, unknown> = {}) => minimal({ pipeline_mode: 'realtime', pipeline_config: config, ...extra });
  for (const bad of [-1, 5001, 1.5, '500', null]) {
    const res = await create(realtime(rt({ endpointing_ms: bad })));
    expect422(t, res, ['body', 'pipeline_config', 'realtime', 'endpointing_ms']);
    t.same(Object.keys(res.json()), ['detail'], 'the contract error shape');
  }
  for (const ok of [0, 5000]) t.equal((await create(realtime(rt({ endpointing_ms: ok })))).statusCode, 201, `endpointing_ms ${ok}`);

  const created = (await create(realtime(rt({ endpointing_ms: 800 }), { interruptible_greeting: false }))).json().agent;
  t.match(created, { interruptible_greeting: false, pipeline_config: rt({ endpointing_ms: 800 }), version: 1 });
  const url = `/v2/agents/${created.id}`;
  expect422(t, await call('PATCH', url, a.machine, { interruptible_greeting: 'yes' }) as never, ['body', 'interruptible_greeting']);
  expect422(t, await call('PATCH', url, a.machine, { pipeline_config: rt({ endpointing_ms: 6000 }) }) as never, ['body', 'pipeline_config', 'realtime', 'endpointing_ms']);
  t.match((await call('PATCH', url, a.machine, { interruptible_greeting: null })).json(), { interruptible_greeting: false, version: 2 }, 'null leaves it as it is');
  const v3 = (await call('PATCH', `${consoleBase(a)}/${created.id}`, a.bearer, { interruptible_greeting: true, pipeline_config: rt({ endpointing_ms: 300 }) })).json();
  t.match(v3, { interruptible_greeting: true, pipeline_config: rt({ endpointing_ms: 300 }), version: 3 });
  t.same((await call('GET', url, a.machine)).json(), v3);
  t.match((await call('GET', `${url}/versions/1`, a.machine)).json(), { interruptible_greeting: false, pipeline_config: rt({ endpointing_ms: 800 }) });
  t.match((await call('GET', `${url}/versions/3`, a.machine)).json(), { interruptible_greeting: true, pipeline_config: rt({ endpointing_ms: 300 }) });
  // Omitted, the realtime stage has no endpointing_ms (the call uses 500 ms).
  t.same((await create(realtime(rt()))).json().agent.pipeline_config, rt());

  const doc = inlineRefs((await h.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  const body = (path: string, method: 'post' | 'patch') => doc.paths[path][method].requestBody.content['application/json'].schema;
  t.match(body('/v2/agents', 'post').properties.interruptible_greeting, { type: 'boolean', default: true });
  t.match(JSON.stringify(body('/v2/agents/{agent_id}', 'patch').properties.interruptible_greeting), /boolean/);
  const info = doc.paths['/v2/agents/{agent_id}'].get.responses['200'].content['application/json'].schema;
  t.match(info.properties.interruptible_greeting, { type: 'boolean' });
  t.ok(info.required.includes('interruptible_greeting'));
});

t.test('tools and variables', async (t) => {
  const tool = (extra: Record<string, unknown> = {}) => ({ type: 'function', name: 'lookup', description: 'd', parameters: { type: 'object', properties: {} }, ...extra });
  expect422(t, await create(minimal({ tools: [tool(), tool()] })), ['body', 'tools', 1, 'name'], 'duplicate tool name');
  expect422(t, await create(minimal({ tools: [tool({ name: 'has space' })] })), ['body', 'tools', 0, 'name'], 'must match ^[a-zA-Z0-9_-]{1,64}$');
  expect422(t, await create(minimal({ tools: [tool({ name: 'x'.repeat(65) })] })), ['body', 'tools', 0, 'name']);
  expect422(t, await create(minimal({ tools: [tool({ name: 'end_call' })] })), ['body', 'tools', 0, 'name'], 'is the name of a built-in tool');
  expect422(t, await create(minimal({ tools: [tool({ type: 'retrieval' })] })), ['body', 'tools', 0, 'type']);
  expect422(t, await create(minimal({ tools: [tool({ parameters: { type: 'string' } })] })), ['body', 'tools', 0, 'parameters'], /JSON Schema object/);
  expect422(t, await create(minimal({ tools: [tool({ parameters: [] })] })), ['body', 'tools', 0, 'parameters']);
  expect422(t, await create(minimal({ tools: [tool({ strict: true })] })), ['body', 'tools', 0, 'strict'], 'unknown field');
  expect422(t, await create(minimal({ tools: [tool({ name: 'a' }), tool({ name: 'b', parameters: { type: 'object', required: [1] } })] })), ['body', 'tools', 1, 'parameters']);
  expect422(t, await create(minimal({ variables: [{ name: 'a', required: true }, { name: 'a', required: false }] })), ['body', 'variables', 1, 'name'], 'duplicate variable name');
  expect422(t, await create(minimal({ variables: [{ name: '1st', required: true }] })), ['body', 'variables', 0, 'name'], 'must match ^[a-zA-Z_][a-zA-Z0-9_]{0,63}$');
  expect422(t, await create(minimal({ variables: [{ name: 'ok', required: 'yes' }] })), ['body', 'variables', 0, 'required']);
  expect422(t, await create(minimal({ variables: [{ name: 'ok', default: 'x' }] })), ['body', 'variables', 0, 'default'], 'unknown field');
});

t.test('list: newest first, paging, include_inactive', async (t) => {
  const tenant = await createTenant(h);
  const openai = await account(tenant, 'openai');
  const rt = { realtime: { account_id: openai, model: 'gpt-realtime-mini', voice: 'cedar' } };
  const ids: string[] = [];
  for (const name of ['one', 'two', 'three']) {
    const res = await create({ name, prompt: 'x', pipeline_mode: 'realtime', pipeline_config: rt }, tenant.machine);
    ids.push(res.json().agent.id);
  }
  const list = await call('GET', '/v2/agents', tenant.machine);
  t.same(list.json().map((x: { name: string }) => x.name), ['three', 'two', 'one']);
  t.same((await call('GET', '/v2/agents?limit=1&offset=1', tenant.machine)).json().map((x: { id: string }) => x.id), [ids[1]]);
  await call('DELETE', `/v2/agents/${ids[1]}`, tenant.machine);
  t.same((await call('GET', '/v2/agents', tenant.machine)).json().map((x: { name: string }) => x.name), ['three', 'one']);
  t.same((await call('GET', `${consoleBase(tenant)}?include_inactive=true`, tenant.bearer)).json().map((x: { name: string }) => x.name), ['three', 'two', 'one']);
  t.same((await call('GET', '/v2/agents?include_inactive=false', tenant.machine)).json().length, 2);
  expect422(t, await call('GET', '/v2/agents?include_inactive=yes', tenant.machine) as never, ['query', 'include_inactive']);
  expect422(t, await call('GET', '/v2/agents?limit=201', tenant.machine) as never, ['query', 'limit']);
  expect422(t, await call('GET', '/v2/agents?offset=-1', tenant.machine) as never, ['query', 'offset']);
  expect422(t, await call('GET', '/v2/agents?colour=red', tenant.machine) as never, ['query', 'colour']);
});

t.test('PATCH: only sent fields change, nullables clear, version increments every time', async (t) => {
  const created = (await create(minimal({ display_name: 'Ava', greeting: 'Hi', max_duration_seconds: 600 }))).json().agent;
  const url = `/v2/agents/${created.id}`;
  const renamed = await call('PATCH', url, a.machine, { name: 'Renamed' });
  t.equal(renamed.statusCode, 200);
  t.same({ ...renamed.json(), updated_at: null }, { ...created, name: 'Renamed', version: 2, updated_at: null });
  const cleared = (await call('PATCH', url, a.machine, { display_name: null, max_duration_seconds: null, prompt: null, backchannel: null })).json();
  t.match(cleared, { display_name: null, max_duration_seconds: null, greeting: 'Hi', prompt: created.prompt, backchannel: true, version: 3 });
  t.equal((await call('PATCH', url, a.machine, {})).json().version, 4, 'even an empty update makes a version');
  const off = (await call('PATCH', `${consoleBase(a)}/${created.id}`, a.bearer, { is_active: false })).json();
  t.match(off, { is_active: false, version: 5 });
  const on = (await call('PATCH', url, a.machine, { is_active: true })).json();
  t.match(on, { is_active: true, version: 6 });

  expect422(t, await call('PATCH', url, a.machine, { idle_warn_seconds: 100, idle_hangup_seconds: 50 }) as never, ['body', 'idle_hangup_seconds']);
  await call('PATCH', url, a.machine, { idle_hangup_seconds: 60 });
  expect422(t, await call('PATCH', url, a.machine, { idle_warn_seconds: 60 }) as never, ['body', 'idle_warn_seconds'], 'idle_hangup_seconds must be greater than idle_warn_seconds');
  expect422(t, await call('PATCH', url, a.machine, { version: 9 }) as never, ['body', 'version'], 'unknown field');
  expect422(t, await call('PATCH', url, a.machine, { dead_air_seconds: 0 }) as never, ['body', 'dead_air_seconds']);

  // Switching mode needs a config for it; the stored config is checked against the new mode.
  expect422(t, await call('PATCH', url, a.machine, { pipeline_mode: 'realtime' }) as never, ['body', 'pipeline_config', 'realtime'], 'field required');
  const rt = { realtime: { account_id: acc.openai, model: 'gpt-realtime', voice: 'marin' } };
  const switched = (await call('PATCH', url, a.machine, { pipeline_mode: 'realtime', pipeline_config: rt })).json();
  t.match(switched, { pipeline_mode: 'realtime', pipeline_config: rt });
  expect422(t, await call('PATCH', url, a.machine, { pipeline_config: { realtime: { ...rt.realtime, api_key: 'x' } } }) as never, ['body', 'pipeline_config', 'realtime', 'api_key']);
  const afterFailures = (await call('GET', url, a.machine)).json();
  t.equal(afterFailures.version, switched.version, 'refused updates make no version');
});

t.test('versions: every version is kept exactly', async (t) => {
  const created = (await create(minimal({ greeting: 'v1' }))).json().agent;
  const v2 = (await call('PATCH', `/v2/agents/${created.id}`, a.machine, { greeting: 'v2', tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }] })).json();
  const deleted = await call('DELETE', `/v2/agents/${created.id}`, a.machine);
  t.equal(deleted.statusCode, 200);
  const v1Doc = await call('GET', `/v2/agents/${created.id}/versions/1`, a.machine);
  t.equal(v1Doc.statusCode, 200);
  t.same(v1Doc.json(), created);
  t.same((await call('GET', `${consoleBase(a)}/${created.id}/versions/2`, a.bearer)).json(), v2);
  t.match((await call('GET', `/v2/agents/${created.id}/versions/3`, a.machine)).json(), { version: 3, is_active: false, greeting: 'v2' });
  t.same((await call('GET', `/v2/agents/${created.id}`, a.machine)).json(), (await call('GET', `/v2/agents/${created.id}/versions/3`, a.machine)).json());
  const missing = await call('GET', `/v2/agents/${created.id}/versions/4`, a.machine);
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { detail: 'agent version not found' });
  expect422(t, await call('GET', `/v2/agents/${created.id}/versions/zero`, a.machine) as never, ['path', 'version']);
  expect422(t, await call('GET', `/v2/agents/${created.id}/versions/0`, a.machine) as never, ['path', 'version']);
  const other = await call('GET', `/v2/agents/${created.id}/versions/1`, b.machine);
  t.equal(other.statusCode, 404);
  t.same(other.json(), { detail: 'agent not found' });
});

t.test('DELETE is soft and returns calls; inactive agents refuse delete and rotate-secret (409)', async (t) => {
  const { agent } = (await create(minimal({ name: 'Temp' }))).json();
  const res = await call('DELETE', `${consoleBase(a)}/${agent.id}`, a.bearer);
  t.equal(res.statusCode, 200);
  t.same(res.json(), { id: agent.id, name: 'Temp', deleted: true, calls: 0 });
  const again = await call('DELETE', `/v2/agents/${agent.id}`, a.machine);
  t.equal(again.statusCode, 409);
  t.same(again.json(), { detail: 'agent is inactive' });
  const rotate = await call('POST', `/v2/agents/${agent.id}/rotate-secret`, a.machine);
  t.equal(rotate.statusCode, 409);
  t.same(rotate.json(), { detail: 'agent is inactive' });
  const got = await call('GET', `/v2/agents/${agent.id}`, a.machine);
  t.match(got.json(), { is_active: false, version: 2 });
});

t.test('rotate-secret: a new secret, shown once, the agent unchanged', async (t) => {
  const created = (await create(minimal())).json();
  const res = await call('POST', `/v2/agents/${created.agent.id}/rotate-secret`, a.machine);
  t.equal(res.statusCode, 200);
  t.match(res.json().webhook_secret, /^whsec_/);
  t.not(res.json().webhook_secret, created.webhook_secret);
  t.same(res.json().agent, created.agent, 'no new version');
  t.equal(await getAgentWebhookSecret(h.ctx, created.agent.id), res.json().webhook_secret);
  const viaConsole = await call('POST', `${consoleBase(a)}/${created.agent.id}/rotate-secret`, a.bearer);
  t.equal(viaConsole.statusCode, 200);
  t.equal(await getAgentWebhookSecret(h.ctx, created.agent.id), viaConsole.json().webhook_secret);
  const got = await call('GET', `/v2/agents/${created.agent.id}`, a.machine);
  t.notOk(got.body.includes(viaConsole.json().webhook_secret));
});

t.test('another project\'s agent is 404 on every route, on both doors', async (t) => {
  const { agent } = (await create(minimal())).json();
  const routes: [Method, string, unknown?][] = [
    ['GET', ''], ['PATCH', '', { name: 'x' }], ['DELETE', ''], ['POST', '/rotate-secret'], ['GET', '/versions/1'],
  ];
  for (const [method, suffix, payload] of routes) {
    const machine = await call(method, `/v2/agents/${agent.id}${suffix}`, b.machine, payload);
    t.equal(machine.statusCode, 404, `machine ${method} ${suffix}`);
    t.same(machine.json(), { detail: 'agent not found' });
    const own = await call(method, `${consoleBase(b)}/${agent.id}${suffix}`, b.bearer, payload);
    t.same(own.json(), { detail: 'agent not found' }, `console ${method} ${suffix}`);
    const theirs = await call(method, `${consoleBase(a)}/${agent.id}${suffix}`, b.bearer, payload);
    t.equal(theirs.statusCode, 404);
    t.same(theirs.json(), { detail: 'project not found' });
  }
  t.notOk((await call('GET', '/v2/agents?include_inactive=true', b.machine)).json().some((x: { id: string }) => x.id === agent.id));
  const unknown = await call('GET', '/v2/agents/00000000-0000-4000-8000-000000000000', a.machine);
  t.same(unknown.json(), { detail: 'agent not found' });
  expect422(t, await call('GET', '/v2/agents/not-a-uuid', a.machine) as never, ['path', 'agent_id']);
});

t.test('scopes: reads need voice:read, writes voice:write', async (t) => {
  const { agent } = (await create(minimal())).json();
  const writes: [Method, string, unknown?][] = [
    ['POST', '/v2/agents', minimal()], ['PATCH', `/v2/agents/${agent.id}`, { name: 'x' }], ['DELETE', `/v2/agents/${agent.id}`], ['POST', `/v2/agents/${agent.id}/rotate-secret`],
  ];
  for (const [method, url, payload] of writes) {
    const res = await call(method, url, readOnly.machine, payload);
    t.equal(res.statusCode, 403, `${method} ${url}`);
    t.same(res.json(), { detail: 'API key lacks the required scope voice:write' });
  }
  for (const url of ['/v2/agents', `/v2/agents/${agent.id}`, `/v2/agents/${agent.id}/versions/1`]) {
    const res = await call('GET', url, webhookOnly.machine);
    t.equal(res.statusCode, 403);
    t.same(res.json(), { detail: 'API key lacks the required scope voice:read' });
  }
  t.equal((await call('GET', '/v2/agents', readOnly.machine)).statusCode, 200);
  t.same((await call('GET', '/v2/agents', {})).json(), { detail: 'missing API key' });
  t.equal((await call('GET', consoleBase(a), {})).statusCode, 401);
});

t.test('loadAgentForSession: the agent with its accounts, no credentials', async (t) => {
  const { agent } = (await create(minimal())).json();
  const loaded = await loadAgentForSession(h.ctx.sql, a.projectId, agent.id);
  t.ok(loaded);
  t.same(JSON.parse(JSON.stringify(loaded!.agent)), (await call('GET', `/v2/agents/${agent.id}`, a.machine)).json());
  t.equal(loaded!.providers_ready, true);
  t.same(loaded!.snapshot.stt, { ...cascade().stt, provider: 'deepgram', account_revision: 1 });
  t.same(loaded!.snapshot.tts, { ...cascade().tts, provider: 'elevenlabs', account_revision: 1 });
  t.notOk(JSON.stringify(loaded).includes(KEYS.deepgram));
  t.equal(await loadAgentForSession(h.ctx.sql, b.projectId, agent.id), null);
  // New credentials make the account unverified: the agent stays, its providers are not ready.
  const tenant = await createTenant(h);
  const openai = await account(tenant, 'openai');
  const rt = (await create({ name: 'rt', prompt: 'x', pipeline_mode: 'realtime', pipeline_config: { realtime: { account_id: openai, model: 'gpt-realtime', voice: 'marin' } } }, tenant.machine)).json().agent;
  await call('PATCH', `/console/v2/projects/${tenant.projectId}/provider-accounts/${openai}`, tenant.bearer, { credentials: { api_key: 'sk-proj-rotated-0000' } });
  const after = await loadAgentForSession(h.ctx.sql, tenant.projectId, rt.id);
  t.equal(after!.providers_ready, false);
  t.match(after!.pipeline[0], { stage: 'realtime', provider: 'openai', account_revision: 2, account_status: 'unverified' });
});

t.test('DELETE counts the sessions that ran on the agent', async (t) => {
  const [table] = await h.ctx.sql`select to_regclass('voice_sessions')::text as t`;
  if (!table.t) {
    t.pass('voice_sessions does not exist yet: calls is 0');
    return;
  }
  const { agent } = (await create(minimal({ name: 'Busy' }))).json();
  for (let i = 0; i < 3; i++) {
    await h.ctx.sql`
      insert into voice_sessions (project_id, agent_id, agent_version, direction, language, pipeline_mode, pipeline_snapshot,
        project_revision, sample_rate_in, sample_rate_out, max_duration_seconds, created_at, record, store_transcript,
        rate_nano_usd_per_min, rate_version, hold_nano_usd)
      values (${a.projectId}, ${agent.id}, 1, 'web', 'en-IN', 'cascade', ${h.ctx.sql.json({})}, 1, 16000, 24000, 600, now(),
        false, false, 5000000, '2026-01', 50000000)`;
  }
  const res = await call('DELETE', `/v2/agents/${agent.id}`, a.machine);
  t.same(res.json(), { id: agent.id, name: 'Busy', deleted: true, calls: 3 });
});

t.test('reactivating an agent checks its pipeline again', async (t) => {
  const tenant = await createTenant(h);
  const openai = await account(tenant, 'openai');
  const body = { name: 'rt', prompt: 'x', pipeline_mode: 'realtime', pipeline_config: { realtime: { account_id: openai, model: 'gpt-realtime', voice: 'marin' } } };
  const { agent } = (await create(body, tenant.machine)).json();
  t.equal((await call('DELETE', `/v2/agents/${agent.id}`, tenant.machine)).statusCode, 200);
  // Inactive agents do not hold their accounts.
  t.equal((await call('DELETE', `/console/v2/projects/${tenant.projectId}/provider-accounts/${openai}`, tenant.bearer)).statusCode, 200);
  expect422(t, await call('PATCH', `/v2/agents/${agent.id}`, tenant.machine, { is_active: true }) as never, ['body', 'pipeline_config', 'realtime', 'account_id'], 'provider account not found in this project');
  const other = await account(tenant, 'openai');
  const back = await call('PATCH', `/v2/agents/${agent.id}`, tenant.machine, { is_active: true, pipeline_config: { realtime: { account_id: other, model: 'gpt-realtime', voice: 'marin' } } });
  t.equal(back.statusCode, 200);
  t.match(back.json(), { is_active: true, version: 3 });
});
