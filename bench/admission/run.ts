// npm run bench:admission — sessions admitted per second through HTTP: POST /v2/voice/sessions
// with an API key (agent load, wallet hold under the wallet row lock, the concurrency slot in
// Redis, the media node pick, the single-use token), the service (ROLES=api,worker and a
// registered media node entry) in one child process, the load client (undici keep-alive pool)
// in another. Phases, in one run against one throwaway database:
//   floor       GET /healthz, closed loop: what this HTTP stack and client do with no work
//   admit       POST /v2/voice/sessions, closed loop (BENCH_CONCURRENCY in flight): max admitted/s
//   idempotent  the same with a fresh Idempotency-Key each (the baseline: one more claim and
//               completion row per request)
//   open200     200 requests/s on an absolute schedule: p50/p99 latency from the scheduled time
//   slots       a project limited to BENCH_SLOT_LIMIT concurrent sessions, flooded
//   wallet      a project funded for BENCH_WALLET_HOLDS holds exactly, flooded
// Afterwards Postgres is checked: every wallet's balance and holds against its ledger, no
// overdraft, no project over its concurrency limit (Postgres rows; Redis slot set sampled every
// 10 ms during the flood), and the 201s counted by the client equal the rows. Writes
// bench/results/admission.json. Run under `flock /tmp/bench.lock`; the load average is recorded.
//
// BENCH_CPU_PROF=<dir>: the service runs with --cpu-prof (profile written when it exits).
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { holdFor } from '../../src/contract/money.js';
import { DEFAULT_MAX_DURATION_SECONDS } from '../../src/sessions/admission.js';
import { createApiKey } from '../../src/db/repos/api-keys.js';
import { countSlots } from '../../src/sessions/slots.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { createLogger } from '../../src/shared/logger.js';
import { nextMessage } from '../media/ipc.js';
import type { LoadPlan, LoadResult } from './client.js';
import { benchProject } from '../shared/bench-project.js';

const here = dirname(fileURLToPath(import.meta.url));
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const OPEN_RATE = Number(process.env.BENCH_OPEN_RATE ?? 200);
const SLOT_LIMIT = Number(process.env.BENCH_SLOT_LIMIT ?? 100);
const WALLET_HOLDS = Number(process.env.BENCH_WALLET_HOLDS ?? 50);
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `voice_bench_admission_${process.pid}`;
const redisPrefix = `vc:bench-admission:${process.pid}:`;
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const apiPort = await freePort();
const env = {
  ...process.env,
  DATABASE_URL: `${PG_BASE}/${dbName}`,
  BENCH_REDIS_PREFIX: redisPrefix,
  KEYRING: `b:${randomBytes(32).toString('base64')}`,
  LOG_LEVEL: 'silent',
  HOST: '127.0.0.1',
  PORT: String(apiPort),
  METRICS_PORT: '0',
  WORKER_HTTP_PORT: '0',
  BENCH_API_ORIGIN: `http://127.0.0.1:${apiPort}`,
};
const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const child = (file: string, prof: string[] = []) => fork(join(here, file), [], { execArgv: ['--import', 'tsx', ...prof], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const exited = (p: ChildProcess) => new Promise<void>((r) => (p.exitCode !== null ? r() : p.once('exit', () => r())));

interface Tenant {
  projectId: string;
  apiKey: string;
  agentId: string;
}

interface PhaseRow {
  phase: string;
  shape: string;
  requests: number;
  statuses: Record<string, number>;
  per_second: number;
  admitted_per_second: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  latency_max_ms: number;
  service_cpu_percent: number;
  client_cpu_percent: number;
  /** Service CPU per admitted session (per request for the floor). */
  service_cpu_ms_per_request: number;
  loadavg: number[];
}

const config = loadConfig(env);
const ctx = await createContext(config, { log: createLogger('silent'), redisPrefix });
const machine = { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? '', loadavg_at_start: loadavg().map((v) => round(v, 2)), note: process.env.BENCH_NOTE ?? '' };
const rows: PhaseRow[] = [];
const checks: { check: string; ok: boolean; detail: string }[] = [];
let service: ChildProcess | null = null;
let client: ChildProcess | null = null;

async function tenant(name: string, limits: { max_concurrent_sessions: number }, funds: bigint): Promise<Tenant> {
  const bench = await benchProject(ctx, `admission-${name}`, { api_rpm: 100_000_000, ...limits }, funds);
  const key = await createApiKey(ctx, bench.projectId, 'bench', ['voice:write', 'voice:read']);
  return { projectId: bench.projectId, apiKey: key.key, agentId: bench.agentId };
}

const serviceCpu = async () => {
  const m = nextMessage<{ cpuMs: number }>(service!, (x) => x?.type === 'stats');
  service!.send({ cmd: 'stats' });
  return (await m).cpuMs;
};

async function phase(name: string, t: Tenant, plan: Omit<LoadPlan, 'apiKey' | 'agentId'>, during?: () => () => void): Promise<LoadResult> {
  const cpu0 = await serviceCpu();
  const stop = during?.();
  const done = nextMessage<{ result: LoadResult }>(client!, (m) => m?.type === 'done');
  client!.send({ cmd: 'run', plan: { ...plan, apiKey: t.apiKey, agentId: t.agentId } });
  const r = (await done).result;
  stop?.();
  const cpuMs = (await serviceCpu()) - cpu0;
  const ok = plan.request === 'floor' ? (r.statuses['200'] ?? 0) : r.admitted.length;
  const row: PhaseRow = {
    phase: name,
    shape: plan.shape === 'closed' ? `closed, ${plan.concurrency} in flight` : `open, ${plan.rate}/s`,
    requests: r.sent,
    statuses: r.statuses,
    per_second: round((r.sent / r.wallMs) * 1000),
    admitted_per_second: round((r.admitted.length / r.wallMs) * 1000),
    latency_p50_ms: r.latencyP50Ms,
    latency_p99_ms: r.latencyP99Ms,
    latency_max_ms: r.latencyMaxMs,
    service_cpu_percent: round((cpuMs / r.wallMs) * 100),
    client_cpu_percent: round((r.cpuMs / r.wallMs) * 100),
    service_cpu_ms_per_request: round(cpuMs / Math.max(1, ok), 2),
    loadavg: loadavg().map((v) => round(v, 2)),
  };
  if (name !== 'warmup') rows.push(row);
  console.log(JSON.stringify(row));
  return r;
}

function check(name: string, ok: boolean, detail: string): void {
  checks.push({ check: name, ok, detail });
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${name}: ${detail}`);
}

try {
  const hold = holdFor(DEFAULT_MAX_DURATION_SECONDS);
  const plenty = 10n ** 15n;
  const main = await tenant('main', { max_concurrent_sessions: 1_000_000 }, plenty);
  const slots = await tenant('slots', { max_concurrent_sessions: SLOT_LIMIT }, plenty);
  const wallet = await tenant('wallet', { max_concurrent_sessions: 1_000_000 }, hold * BigInt(WALLET_HOLDS));

  service = child('service.ts', profile);
  await nextMessage(service, (m) => m?.type === 'ready');
  client = child('client.ts');
  await nextMessage(client, (m) => m?.type === 'ready');

  const closed = { shape: 'closed' as const, concurrency: CONCURRENCY, rate: 0, durationMs: DURATION_MS };
  const admitted: Record<string, string[]> = {};
  admitted.warmup = (await phase('warmup', main, { ...closed, durationMs: 3000, request: 'admit' })).admitted;
  await phase('floor', main, { ...closed, request: 'floor' });
  admitted.admit = (await phase('admit', main, { ...closed, request: 'admit' })).admitted;
  admitted.idempotent = (await phase('idempotent', main, { ...closed, request: 'idempotent' })).admitted;
  admitted.open = (await phase(`open${OPEN_RATE}`, main, { shape: 'open', concurrency: 0, rate: OPEN_RATE, durationMs: DURATION_MS, request: 'admit' })).admitted;

  // The flood phases: every request beyond the limit must be refused (429 / 402).
  let slotMax = 0;
  const sampler = () => {
    let on = true;
    void (async () => {
      while (on) {
        slotMax = Math.max(slotMax, await countSlots(ctx, slots.projectId));
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    return () => (on = false);
  };
  const flood = { shape: 'closed' as const, concurrency: 64, rate: 0, durationMs: 3000 };
  const slotRun = await phase('slots', slots, { ...flood, request: 'admit' }, sampler);
  const walletRun = await phase('wallet', wallet, { ...flood, request: 'admit' });

  // Postgres afterwards.
  const wallets = await ctx.sql<{ project_id: string; balance: bigint; held: bigint; credits: bigint; charges: bigint; holds: bigint; releases: bigint; hold_rows: number; sessions: number }[]>`
    select w.project_id, w.balance_nano_usd as balance, w.held_nano_usd as held,
      coalesce((select sum(amount_nano_usd) from wallet_ledger l where l.project_id = w.project_id and kind = 'credit'), 0)::bigint as credits,
      coalesce((select sum(amount_nano_usd) from wallet_ledger l where l.project_id = w.project_id and kind = 'charge'), 0)::bigint as charges,
      coalesce((select sum(amount_nano_usd) from wallet_ledger l where l.project_id = w.project_id and kind = 'hold'), 0)::bigint as holds,
      coalesce((select sum(amount_nano_usd) from wallet_ledger l where l.project_id = w.project_id and kind = 'release'), 0)::bigint as releases,
      (select count(*) from wallet_ledger l where l.project_id = w.project_id and kind = 'hold')::int as hold_rows,
      (select count(*) from voice_sessions s where s.project_id = w.project_id)::int as sessions
    from wallets w`;
  for (const w of wallets) {
    const name = w.project_id === main.projectId ? 'main' : w.project_id === slots.projectId ? 'slots' : 'wallet';
    check(`${name}: no overdraft`, w.balance >= 0n && w.held >= 0n && w.held <= w.balance, `balance ${w.balance}, held ${w.held} nano-USD`);
    check(`${name}: holds = ledger`, w.held === w.holds - w.releases && w.balance === w.credits - w.charges, `held ${w.held} = Σhold ${w.holds} − Σrelease ${w.releases}; balance ${w.balance} = Σcredit ${w.credits} − Σcharge ${w.charges}`);
    check(`${name}: one hold per session`, w.hold_rows === w.sessions, `${w.hold_rows} hold rows, ${w.sessions} sessions`);
  }
  const [{ n: mainRows }] = await ctx.sql<{ n: number }[]>`select count(*)::int as n from voice_sessions where project_id = ${main.projectId}`;
  const clientAdmitted = Object.values(admitted).reduce((s, a) => s + a.length, 0);
  check('main: 201s = session rows', mainRows === clientAdmitted, `${clientAdmitted} 201s counted by the client, ${mainRows} session rows`);
  const [{ n: slotRows }] = await ctx.sql<{ n: number }[]>`select count(*)::int as n from voice_sessions where project_id = ${slots.projectId} and settled_at is null`;
  check('slots: no overshoot', slotRows <= SLOT_LIMIT && slotRun.admitted.length <= SLOT_LIMIT && slotMax <= SLOT_LIMIT,
    `limit ${SLOT_LIMIT}: ${slotRun.admitted.length} admitted of ${slotRun.sent} (${JSON.stringify(slotRun.statuses)}), ${slotRows} live rows, Redis slot set max ${slotMax} (sampled every 10 ms)`);
  check('slots: limit reached', slotRun.admitted.length === SLOT_LIMIT, `${slotRun.admitted.length} of ${SLOT_LIMIT} admitted`);
  check('wallet: funds for exactly the holds admitted', walletRun.admitted.length === WALLET_HOLDS,
    `funded for ${WALLET_HOLDS} holds: ${walletRun.admitted.length} admitted of ${walletRun.sent} (${JSON.stringify(walletRun.statuses)})`);
} finally {
  client?.send({ cmd: 'exit' });
  service?.send({ cmd: 'exit' });
  await Promise.all([client && exited(client), service && exited(service)]);
  const keys = await ctx.redis.keys(`${redisPrefix}*`);
  if (keys.length) await ctx.redis.del(...keys);
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch(() => {});
}

const pad = (v: unknown, w: number) => String(v).padStart(w);
console.log(`\nadmission through HTTP (${machine.cpus} × ${machine.cpu_model}; load average ${machine.loadavg_at_start.join(' ')} at the start, ${loadavg().map((v) => round(v, 2)).join(' ')} at the end)`);
console.log('phase        load                    requests  admitted/s   req/s   p50 ms   p99 ms   max ms  service CPU%  client CPU%  service CPU-ms/req  statuses');
for (const r of rows) {
  console.log(
    `${r.phase.padEnd(12)} ${r.shape.padEnd(22)}${pad(r.requests, 9)}${pad(r.admitted_per_second, 12)}${pad(r.per_second, 8)}${pad(r.latency_p50_ms, 9)}${pad(r.latency_p99_ms, 9)}${pad(r.latency_max_ms, 9)}` +
      `${pad(r.service_cpu_percent, 14)}${pad(r.client_cpu_percent, 13)}${pad(r.service_cpu_ms_per_request, 20)}  ${JSON.stringify(r.statuses)}`,
  );
}
const failed = checks.filter((c) => !c.ok);
console.log(failed.length ? `\n${failed.length} check(s) FAILED` : `\nall ${checks.length} checks passed`);
const out = join(here, '..', 'results', 'admission.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(
  out,
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, machine, loadavg_at_end: loadavg().map((v) => round(v, 2)), duration_ms: DURATION_MS, concurrency: CONCURRENCY, baseline: 'idempotent: the same admission with an Idempotency-Key (one more claim/complete per request); floor: GET /healthz', rows, checks }, null, 2)}\n`,
);
console.log(`wrote ${out}`);
process.exit(failed.length ? 1 : 0);
