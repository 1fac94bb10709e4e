import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import t from 'tap';
import { freePort } from '../helpers/own-redis.js';
import { answers } from '../../src/bootstrap/reachable.js';

// A first run with nothing but Node: the service (src/main.ts, as `npm start` runs it) with
// DATABASE_URL and REDIS_URL unset and the "usual" ports moved (LOCAL_POSTGRES_PORT,
// LOCAL_REDIS_PORT) to free ones, so the shared servers on 5432/6379 are out of reach. It starts
// an embedded Postgres and a redis-server of its own, serves a sign-up, an agent and a session,
// and stops both on SIGTERM; after a SIGKILL the next start stops the leftovers. With
// NODE_ENV=production nothing is started: a clear error and a non-zero exit.

t.setTimeout(600_000);
const run = promisify(execFile);
const root = new URL('../..', import.meta.url).pathname;

interface Service {
  child: ChildProcess;
  /** The log, one JSON object per line (stdout), and anything else (stderr). */
  logs: Record<string, unknown>[];
  stderr: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

interface Dirs {
  dataDir: string;
  envFile: string;
  env: Record<string, string>;
}

/** A data directory and the environment of a first run (no DATABASE_URL, REDIS_URL or NODE_ENV). */
async function firstRunEnv(): Promise<Dirs> {
  const dataDir = mkdtempSync(join(tmpdir(), 'first-run-'));
  // As root the embedded Postgres runs as the `postgres` user, who must reach DATA_DIR.
  chmodSync(dataDir, 0o755);
  const envFile = join(dataDir, 'empty.env');
  writeFileSync(envFile, '');
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !['DATABASE_URL', 'REDIS_URL', 'NODE_ENV', 'KEYRING'].includes(k)) env[k] = v;
  Object.assign(env, {
    ENV_FILE: envFile,
    DATA_DIR: dataDir,
    LOCAL_POSTGRES_PORT: String(await freePort()),
    LOCAL_REDIS_PORT: String(await freePort()),
    PORT: String(await freePort()),
    MEDIA_PORT: String(await freePort()),
    WORKER_HTTP_PORT: '0',
    WORKER_PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    DRAIN_GRACE_MS: '0',
  });
  return { dataDir, envFile, env };
}

/** `ownGroup`: the service leads a process group of its own, as a shell's foreground job does (Ctrl-C signals the group). */
function startService(env: Record<string, string>, ownGroup = false): Service {
  const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: ownGroup });
  const logs: Record<string, unknown>[] = [];
  const stderr: string[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      logs.push({ msg: line });
    }
  });
  createInterface({ input: child.stderr! }).on('line', (line) => stderr.push(line));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, logs, stderr, exited };
}

async function waitForLog(s: Service, msg: RegExp, timeoutMs = 180_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const hit = s.logs.find((l) => msg.test(String(l.msg)));
    if (hit) return hit;
    if (s.child.exitCode !== null) throw new Error(`the service exited (${s.child.exitCode}) before logging ${msg}: ${s.stderr.slice(-5).join(' | ')}`);
    if (Date.now() > deadline) throw new Error(`no log line ${msg}: ${JSON.stringify(s.logs.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Record_ {
  owner: number;
  children: { name: string; pid: number }[];
}
const childPids = (dataDir: string) => Object.fromEntries((JSON.parse(readFileSync(join(dataDir, 'local-services.json'), 'utf8')) as Record_).children.map((c) => [c.name, c.pid]));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie (exited, not yet reaped) has no command line.
  return existsSync(`/proc/${pid}/cmdline`) && readFileSync(`/proc/${pid}/cmdline`).length > 0;
}

async function gone(pid: number, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

async function call(base: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const PASSWORD = 'a long first-run password 42';

t.test('nothing configured, nothing answering: an embedded Postgres and a redis-server, stopped with the service', async (t) => {
  const { dataDir, envFile, env } = await firstRunEnv();
  const base = `http://127.0.0.1:${env.PORT}`;
  const svc = startService(env);
  const pgLine = await waitForLog(svc, /started an embedded Postgres/);
  const redisLine = await waitForLog(svc, /started redis-server/);
  await waitForLog(svc, /voice agent service started/);
  t.equal(pgLine.url, `postgres://postgres@127.0.0.1:${env.LOCAL_POSTGRES_PORT}/voice`, 'the embedded Postgres is on the usual (here: moved) port');
  t.equal(pgLine.data, join(dataDir, 'postgres'), 'its data is in DATA_DIR');
  t.equal(redisLine.url, `redis://127.0.0.1:${env.LOCAL_REDIS_PORT}`);
  t.ok(existsSync(join(dataDir, 'postgres', 'PG_VERSION')), 'a cluster in DATA_DIR/postgres');
  const pids = childPids(dataDir);
  t.ok(alive(pids.postgres) && alive(pids['redis-server']), 'both children run');

  const ready = await call(base, 'GET', '/readyz', {});
  t.equal(ready.status, 200, '/readyz answers 200', { body: ready.body });

  // A customer's first steps: sign up (the development mail transport logs the link), verify, log in.
  const email = 'first-run@example.com';
  t.equal((await call(base, 'POST', '/console/auth/signup', {}, { email, password: PASSWORD })).status, 201);
  const mail = await waitForLog(svc, /^mail for account:/, 10_000);
  const token = /verify-email\?token=([^\s&]+)/.exec(String(mail.msg))?.[1];
  t.ok(token, 'the verification link is in the log');
  t.equal((await call(base, 'GET', `/console/auth/verify-email?token=${token}`, {})).status, 200);
  const login = await call(base, 'POST', '/console/auth/login', {}, { email, password: PASSWORD });
  t.equal(login.status, 200);
  const bearer = { authorization: `Bearer ${String(login.body.access_token)}` };
  const project = await call(base, 'POST', '/console/v2/projects', bearer, { name: 'first run' });
  t.equal(project.status, 201);
  const projectId = String(project.body.id);
  const key = await call(base, 'POST', `/console/v2/projects/${projectId}/api-keys`, bearer, { name: 'first', scopes: ['voice:read', 'voice:write'] });
  t.equal(key.status, 201);
  const machine = { 'x-api-key': String(key.body.key) };

  // An agent on this machine's local engines, credit from the admin CLI (same settings, the embedded database), a session.
  const account = await call(base, 'POST', `/console/v2/projects/${projectId}/provider-accounts`, bearer, { provider: 'local', label: 'this machine' });
  t.equal(account.status, 201, 'a local provider account', { body: account.body });
  const accountId = String(account.body.id);
  const verified = await call(base, 'POST', `/console/v2/projects/${projectId}/provider-accounts/${accountId}/verify`, bearer);
  t.equal(verified.body.status, 'verified', 'it verifies', { body: verified.body });
  const agent = await call(base, 'POST', '/v2/agents', machine, {
    name: 'first run',
    prompt: 'Repeat what the caller says.',
    pipeline_mode: 'cascade',
    language: 'en-US',
    pipeline_config: {
      stt: { account_id: accountId, model: 'pocketsphinx-en-us' },
      llm: { account_id: accountId, model: 'echo' },
      tts: { account_id: accountId, model: 'espeak-ng', voice: 'en-us' },
    },
  });
  t.equal(agent.status, 201, 'an agent', { body: agent.body });
  const agentId = String((agent.body.agent as { id?: string } | undefined)?.id ?? agent.body.id);
  const adminEnv = { ...env, DATABASE_URL: String(pgLine.url), REDIS_URL: String(redisLine.url), ENV_FILE: envFile, LOG_LEVEL: 'silent' };
  const credit = await run(process.execPath, ['--import=tsx', 'src/cli/admin.ts', 'wallet-credit', '--project-id', projectId, '--nano-usd', '1000000000'], { cwd: root, env: adminEnv });
  t.same(JSON.parse(credit.stdout), { balance_nano_usd: '1000000000' });
  const session = await call(base, 'POST', '/v2/voice/sessions', machine, { agent_id: agentId });
  t.equal(session.status, 201, 'a session is admitted', { body: session.body });

  svc.child.kill('SIGTERM');
  const { code } = await svc.exited;
  t.equal(code, 0, 'the service drains and exits 0');
  t.ok(await gone(pids.postgres), 'the embedded Postgres stopped');
  t.ok(await gone(pids['redis-server']), 'redis-server stopped');
  t.notOk(await answers('127.0.0.1', Number(env.LOCAL_POSTGRES_PORT)), 'its port is closed');
  t.notOk(await answers('127.0.0.1', Number(env.LOCAL_REDIS_PORT)), 'its port is closed');
  t.notOk(existsSync(join(dataDir, 'local-services.json')), 'no record of children is left');

  // Killed outright, the service leaves its children; the next start stops them and starts its own,
  // on the data of the first run (the account still logs in).
  const second = startService(env);
  await waitForLog(second, /voice agent service started/);
  const orphans = childPids(dataDir);
  second.child.kill('SIGKILL');
  await second.exited;
  t.ok(alive(orphans.postgres) && alive(orphans['redis-server']), 'a SIGKILLed service leaves its children running');
  const third = startService(env, true);
  await waitForLog(third, /voice agent service started/);
  t.ok(third.logs.some((l) => /stopping the postgres a previous service process left running/.test(String(l.msg))), 'the leftover Postgres is named in the log');
  t.ok(await gone(orphans.postgres), 'the leftover Postgres is gone');
  t.ok(await gone(orphans['redis-server']), 'the leftover redis-server is gone');
  const again = await call(base, 'POST', '/console/auth/login', {}, { email, password: PASSWORD });
  t.equal(again.status, 200, 'the data of the first run is kept in DATA_DIR');
  const now = childPids(dataDir);
  // Ctrl-C in a terminal signals the whole foreground group: the children (groups of their own) are
  // not cut before the service drained, and the service stops them.
  process.kill(-third.child.pid!, 'SIGINT');
  t.equal((await third.exited).code, 0, 'Ctrl-C: the service drains and exits 0');
  t.notOk(third.logs.some((l) => /exited while the service runs/.test(String(l.msg))), 'no child stopped before the service had drained');
  t.ok((await gone(now.postgres)) && (await gone(now['redis-server'])), 'both children stopped with the service');
});

t.test('NODE_ENV=production never falls back: nothing reachable is an error', async (t) => {
  const { dataDir, env } = await firstRunEnv();
  const svc = startService({ ...env, NODE_ENV: 'production', KEYRING: `k1:${Buffer.alloc(32, 3).toString('base64')}` });
  const { code } = await svc.exited;
  t.not(code, 0);
  const message = svc.stderr.join('\n');
  t.match(message, `NODE_ENV=production never starts local services: DATABASE_URL is not set and nothing answers on 127.0.0.1:${env.LOCAL_POSTGRES_PORT}; REDIS_URL is not set and nothing answers on 127.0.0.1:${env.LOCAL_REDIS_PORT}`);
  t.match(message, 'Set DATABASE_URL and REDIS_URL');
  t.notOk(existsSync(join(dataDir, 'postgres')), 'no database was made');
});

t.test('no redis-server on the PATH: one line that says how to install it, nothing left running', async (t) => {
  const { dataDir, env } = await firstRunEnv();
  const svc = startService({ ...env, PATH: '/nonexistent' });
  const { code } = await svc.exited;
  t.equal(code, 1);
  t.equal(svc.stderr.length, 1, 'one line on stderr', { stderr: svc.stderr });
  t.match(svc.stderr[0], /redis-server is not installed: install it \(Debian\/Ubuntu: apt-get install redis-server; macOS: brew install redis\) or set REDIS_URL/);
  t.notOk(existsSync(join(dataDir, 'postgres')), 'the check comes before any database is made');
});
