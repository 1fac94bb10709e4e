// npm run demo [-- --out call.wav] [--verbose] — a whole call, fully offline.
//
// Starts the service in this process (API, media and worker roles, as src/main.ts does) on
// free ports with a throwaway database (voice_demo_<random> on the Postgres of DATABASE_URL,
// default postgres://postgres@127.0.0.1:5432) and its own Redis prefix; makes an account,
// project and API key with the admin commands, a `local` provider account (verified: it needs
// espeak-ng and PocketSphinx on this machine), an agent on it (pocketsphinx-en-us, echo,
// espeak-ng, with a greeting) and credit; then calls it like a customer would: POST
// /v2/voice/sessions with the API key, the media socket with `ws`, three caller sentences from
// espeak-ng in real time. Prints the live transcript and the settled session, writes the call
// as a stereo WAV (left caller, right agent, 16 kHz), and cleans everything up.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { AppContext } from '../src/shared/app-context.js';
import { commands } from '../src/cli/commands.js';
import { loadConfig } from '../src/config/env.js';
import { closeContext, createContext } from '../src/context.js';
import { runRoles } from '../src/roles/run.js';
import { startLocalServices } from '../src/bootstrap/local-services.js';
import { dropDatabase } from '../src/shared/sql.js';
import { createAccount as createProviderAccount, verifyAccount } from '../src/providers/accounts.js';
import { findLocalEngines } from '../src/providers/verify/local.js';
import { Keyring } from '../src/shared/crypto/keyring.js';
import { createLogger } from '../src/shared/logger.js';
import { freePort } from './free-port.js';
import { synthesize, writeStereoWav } from './demo-audio.js';
import { DemoCaller } from './demo-caller.js';

const RATE_HZ = 16000;
const GREETING = 'Hello! This is the offline demo agent. Say something, and I will say it back.';
/** Caller sentences and espeak-ng voices that PocketSphinx's small US English model gets mostly right. */
const SENTENCES: [string, string][] = [
  ['I want to order a pizza.', 'en-us+f3'],
  ['Can I pay with a credit card?', 'en-us'],
  ['Thank you, that is all.', 'en-us'],
];

const { values: args } = parseArgs({ options: { out: { type: 'string', default: 'demo-call.wav' }, verbose: { type: 'boolean', default: false } } });
const out = resolve(args.out!);
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function admin(ctx: AppContext, name: string, flags: Record<string, string | true>) {
  return (await commands[name](ctx, new Map(Object.entries(flags)))) as Record<string, string>;
}

async function api(base: string, key: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

// ----------------------------------------------------------------------------- engines

const engines = await findLocalEngines();
if (!engines.pocketsphinx || !engines.pocketsphinxModel || !engines.espeakNg) {
  const packages = [...(engines.espeakNg ? [] : ['espeak-ng']), ...(engines.pocketsphinx && engines.pocketsphinxModel ? [] : ['pocketsphinx', 'pocketsphinx-en-us'])];
  const what = [!engines.espeakNg && 'espeak-ng (speech synthesis)', !engines.pocketsphinx && 'pocketsphinx (speech recognition)', engines.pocketsphinx && !engines.pocketsphinxModel && 'the PocketSphinx US English model'].filter(Boolean);
  process.stderr.write(
    `The demo runs the local provider on this machine, but ${what.join(' and ')} ${what.length > 1 ? 'are' : 'is'} not installed.\n` +
      `Install ${packages.length > 1 ? 'them' : 'it'} (Debian/Ubuntu, as root) and run the demo again:\n\n  apt-get install ${packages.join(' ')}\n\n`,
  );
  process.exit(1);
}

// ----------------------------------------------------------------------------- the service

// First run: an embedded Postgres and a redis-server of our own when none is configured or answering.
const local = await startLocalServices(process.env, createLogger(process.env.LOG_LEVEL ?? 'error', 'voice', 2)).catch((err: unknown) => {
  process.stderr.write(`demo failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
for (const what of local.started) say(`started ${what} (none configured or answering; data in ${process.env.DATA_DIR ?? '.data'})`);
const base = new URL(local.env.DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const dbName = `voice_demo_${randomBytes(4).toString('hex')}`;
base.pathname = `/${dbName}`;
const [port, mediaPort] = [await freePort(), await freePort()];
const config = loadConfig({
  ...process.env,
  ...local.env,
  DATABASE_URL: base.toString(),
  PORT: String(port),
  MEDIA_PORT: String(mediaPort),
  WORKER_HTTP_PORT: '0',
  HOST: '127.0.0.1',
  PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
  PUBLIC_MEDIA_URL: `ws://127.0.0.1:${mediaPort}`,
  ROLES: 'api,media,worker',
  MEDIA_PIPELINE: 'agent',
  DRAIN_GRACE_MS: '0',
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'error',
});
const redisPrefix = `vc:demo:${dbName}:`;
say(`starting the service (database ${dbName}, API :${port}, media :${mediaPort}) ...`);
const ctx = await createContext(config, {
  log: createLogger(config.LOG_LEVEL, 'voice', 2),
  keyring: new Keyring([{ id: 'demo', key: randomBytes(32) }]),
  redisPrefix,
});

type Stop = () => Promise<void>;
const stops: Stop[] = [];
let exitCode = 0;
let caller: DemoCaller | null = null;
try {
  stops.push(await runRoles(ctx, config.ROLES));
  const apiBase = `http://127.0.0.1:${port}`;

  // --------------------------------------------------------------------------- tenant

  const email = `demo-${randomBytes(3).toString('hex')}@example.com`;
  await admin(ctx, 'create-account', { email, password: randomBytes(12).toString('hex'), verified: true });
  const { project_id: projectId } = await admin(ctx, 'create-project', { email, name: 'offline demo' });
  const { key } = await admin(ctx, 'create-api-key', { 'project-id': projectId, scopes: 'voice:read,voice:write' });
  await admin(ctx, 'wallet-credit', { 'project-id': projectId, 'nano-usd': String(5_000_000_000) });
  const account = await createProviderAccount(ctx, projectId, { provider: 'local', label: 'this machine' });
  const verified = await verifyAccount(ctx, projectId, account.id);
  say(`provider account local: ${verified.status}${verified.status_detail ? ` (${verified.status_detail})` : ''}`);
  if (verified.status !== 'verified') throw new Error('the local provider account did not verify');

  const agent = await api(apiBase, key, 'POST', '/v2/agents', {
    name: 'offline demo',
    prompt: 'Repeat what the caller says.',
    pipeline_mode: 'cascade',
    language: 'en-US',
    greeting: GREETING,
    pipeline_config: {
      stt: { account_id: account.id, model: 'pocketsphinx-en-us' },
      llm: { account_id: account.id, model: 'echo' },
      tts: { account_id: account.id, model: 'espeak-ng', voice: 'en-us' },
    },
  });
  const agentId = (agent.agent as { id: string } | undefined)?.id ?? (agent.id as string);

  // --------------------------------------------------------------------------- the call

  const created = await api(apiBase, key, 'POST', '/v2/voice/sessions', { agent_id: agentId, sample_rate_in: RATE_HZ, sample_rate_out: RATE_HZ });
  const sessionId = (created.session as { id: string }).id;
  say(`session ${sessionId}: connecting to ${String(created.ws_url).replace(/token=.*/, 'token=…')}`);
  const speech = SENTENCES.map(([text, voice]) => synthesize(text, RATE_HZ, voice, 140));

  caller = new DemoCaller(String(created.ws_url), RATE_HZ, say, args.verbose!);
  await caller.opened;
  caller.start();
  say('');
  // The greeting first; then each sentence, once the agent has finished answering the last.
  await caller.waitFor((f) => f.type === 'turn_complete', 0, 20_000);
  for (const [i, pcm] of speech.entries()) {
    await sleep(800);
    const from = caller.now();
    say(`[${(from / 1000).toFixed(1).padStart(5)} s] (caller says "${SENTENCES[i][0]}")`);
    await caller.say(pcm);
    const stoppedAt = caller.now();
    const heard = await caller.waitFor((f) => f.type === 'transcript' && f.role === 'user', from, 20_000);
    if (!heard) {
      say(`(no transcript for caller sentence ${i + 1} within 20 s)`);
      continue;
    }
    const done = await caller.waitFor((f) => f.type === 'turn_complete' || f.type === 'session_ended', heard.atMs, 30_000);
    if (!done) say('(the agent did not finish its answer within 30 s)');
    const answered = caller.firstAudioAfter(heard.atMs);
    if (answered !== null) {
      say(`        (the caller stopped at ${(stoppedAt / 1000).toFixed(1)} s; their transcript came ${((heard.atMs - stoppedAt) / 1000).toFixed(1)} s later, the answer audio ${((answered - stoppedAt) / 1000).toFixed(1)} s later)`);
    }
    if (done?.frame.type === 'session_ended') break;
  }
  await sleep(800);
  caller.hangUp();
  const closed = await Promise.race([caller.closed, sleep(5000).then(() => null)]);
  say('');
  say(`media socket closed: ${closed ? `${closed.code} ${closed.reason}` : 'no close within 5 s'}`);
  if (args.verbose) say(`control frames: ${JSON.stringify(caller.control.map((c) => ({ at_ms: Math.round(c.atMs), ...c.frame })))}`);

  // --------------------------------------------------------------------------- the bill

  let session: Record<string, unknown> = {};
  for (let i = 0; i < 50; i++) {
    session = await api(apiBase, key, 'GET', `/v2/voice/sessions/${sessionId}`);
    if (session.status === 'completed' || session.status === 'failed') break;
    await sleep(200);
  }
  say(`session: status ${String(session.status)}, end_reason ${String(session.end_reason)}, connected_seconds ${String(session.connected_seconds)}, cost_nano_usd ${String(session.cost_nano_usd)}`);

  const totalMs = Math.max(caller.endedAtMs, caller.agent.durationMs, caller.caller.durationMs);
  writeStereoWav(out, caller.caller.render(totalMs), caller.agent.render(totalMs), RATE_HZ);
  say(`wrote ${out} (${(totalMs / 1000).toFixed(1)} s, stereo 16 kHz: left caller, right agent)`);
} catch (err) {
  exitCode = 1;
  process.stderr.write(`demo failed: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
} finally {
  caller?.ws.terminate();
  // runRoles' stop marks the process draining, then stops the roles in reverse.
  for (const stop of stops.reverse()) await stop().catch((err) => process.stderr.write(`stop failed: ${String(err)}\n`));
  const keys = await ctx.redis.keys(`${redisPrefix}*`).catch(() => [] as string[]);
  if (keys.length) await ctx.redis.del(...keys).catch(() => {});
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch((err) => process.stderr.write(`could not drop ${dbName}: ${String(err)}\n`));
  await local.stop();
}
process.exit(exitCode);
