// npm run bench:auth — a legitimate console login's latency while 32 connections guess passwords,
// against our api (per-account/per-address throttle, device cookies and known addresses sorting
// scrypt work into lanes) and against the same login path without either (`baseline`), in one
// run. Two legitimate users log in side by side every 250 ms: a returning one (the device cookie
// and the address of its last sign-in, as a browser that signed in before has) and one on a new
// device each time (fresh address, no cookie: nothing tells it from a guess at an untouched
// account). Target: the returning user's p95 ≤ 500 ms.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { dropDatabase } from '../../src/shared/sql.js';

const here = dirname(fileURLToPath(import.meta.url));
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `voice_bench_auth_${process.pid}_${randomBytes(3).toString('hex')}`;
const env = { ...process.env, DATABASE_URL: `${PG_BASE}/${dbName}`, BENCH_REDIS_PREFIX: `vc:bench:auth:${dbName}:` };
const FLOOD_MS = Number(process.env.BENCH_FLOOD_MS ?? 15_000);
const LEGIT_EVERY_MS = 250;
const PASSWORD = 'a long legitimate password';

const loadStart = loadavg();
const ctx = await createContext(loadConfig({ ...env, LOG_LEVEL: 'silent' }), { redisPrefix: env.BENCH_REDIS_PREFIX });
await createAccount(ctx, 'legit@example.com', PASSWORD);
await createAccount(ctx, 'newcomer@example.com', PASSWORD);
await createAccount(ctx, 'victim@example.com', 'the victim password');
for (let i = 0; i < 32; i++) await createAccount(ctx, `victim${i}@example.com`, 'the victim password');

const child = (file: string, extra: Record<string, string>): ChildProcess => fork(join(here, file), [], { execArgv: ['--import', 'tsx'], env: { ...env, ...extra }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const message = <T>(p: ChildProcess) => new Promise<T>((resolve) => p.once('message', (m) => resolve(m as T)));

interface Sample {
  ms: number;
  status: number;
  cookie: string | null;
}

async function login(port: number, email: string, address: string, cookie: string | null): Promise<Sample> {
  const started = performance.now();
  const res = await fetch(`http://127.0.0.1:${port}/console/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': address, ...(cookie ? { cookie } : {}) },
    body: JSON.stringify({ email, password: PASSWORD }),
  });
  await res.arrayBuffer();
  return { ms: performance.now() - started, status: res.status, cookie: res.headers.get('set-cookie')?.split(';')[0] ?? null };
}

/** Logs in every LEGIT_EVERY_MS until `until`: `returning` keeps its address and cookie, `newcomer` never has either. */
async function legitLoop(port: number, kind: 'returning' | 'newcomer', until: number, cookie: string | null): Promise<Sample[]> {
  const out: Sample[] = [];
  for (let n = 0; performance.now() < until; n++) {
    const s = kind === 'returning' ? await login(port, 'legit@example.com', '10.8.0.1', cookie) : await login(port, 'newcomer@example.com', `10.9.${n >> 8}.${n & 255}`, null);
    cookie = s.cookie ?? cookie;
    out.push(s);
    await new Promise((r) => setTimeout(r, LEGIT_EVERY_MS));
  }
  return out;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? Math.round(s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]) : NaN;
};

interface Figures {
  logins: number;
  ok: number;
  p50_ms: number;
  p95_ms: number;
  max_ms: number;
}
interface Row {
  server: string;
  flood: string;
  returning: Figures;
  newcomer: Figures;
  flood_responses: Record<string, number>;
}
const figures = (samples: Sample[]): Figures => {
  const ms = samples.map((s) => s.ms);
  return { logins: samples.length, ok: samples.filter((s) => s.status === 200).length, p50_ms: pct(ms, 50), p95_ms: pct(ms, 95), max_ms: Math.round(Math.max(...ms)) };
};
const rows: Row[] = [];

// Ours and the baseline back to back for each flood, so a shift in the machine's load between
// scenarios affects both sides of each comparison alike.
for (const flood of ['none', 'one', 'many']) {
  for (const server of ['ours', 'baseline']) {
    await ctx.redis.eval("for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end", 0, `${env.BENCH_REDIS_PREFIX}*`);
    const srv = child('server.ts', { BENCH_SERVER: server });
    const { port } = await message<{ port: number }>(srv);
    // The returning user signed in from this browser before: it holds a device cookie and its address is known.
    const { cookie } = await login(port, 'legit@example.com', '10.8.0.1', null);
    const attacker = flood === 'none' ? null : child('flood.ts', { BENCH_PORT: String(port), BENCH_FLOOD: flood, BENCH_FLOOD_MS: String(FLOOD_MS) });
    const done = attacker ? message<{ counts: Record<string, number> }>(attacker) : Promise.resolve({ counts: {} });
    await new Promise((r) => setTimeout(r, 1000)); // let the flood build up
    const until = performance.now() + (flood === 'none' ? 8000 : FLOOD_MS - 2000);
    const [returning, newcomer] = await Promise.all([legitLoop(port, 'returning', until, cookie), legitLoop(port, 'newcomer', until, null)]);
    const { counts } = await done;
    srv.kill();
    rows.push({ server, flood, returning: figures(returning), newcomer: figures(newcomer), flood_responses: counts });
    console.log(JSON.stringify(rows.at(-1)));
  }
}

await closeContext(ctx);
await dropDatabase(env.DATABASE_URL);

console.log('\nlegitimate logins during a 32-connection password flood (flood: one = one address and account, many = 32 of each)');
console.log('returning = device cookie and known address; newcomer = new device and address every time');
console.log('server    flood  | returning: logins ok  p50  p95  max | newcomer: logins ok  p50  p95  max | flood answers');
const cols = (f: Figures) => `${String(f.logins).padStart(6)} ${String(f.ok).padStart(3)} ${String(f.p50_ms).padStart(5)} ${String(f.p95_ms).padStart(5)} ${String(f.max_ms).padStart(5)}`;
for (const r of [...rows].sort((a, b) => (a.server === b.server ? 0 : a.server === 'ours' ? -1 : 1))) console.log(`${r.server.padEnd(9)} ${r.flood.padEnd(6)} |           ${cols(r.returning)} |          ${cols(r.newcomer)} | ${JSON.stringify(r.flood_responses)}`);
const worst = Math.max(...rows.filter((r) => r.server === 'ours').map((r) => r.returning.p95_ms));
console.log(`\ntarget: returning user's login p95 ≤ 500 ms during the flood: ${worst <= 500 ? 'MET' : 'MISSED'} (worst ours ${worst} ms)`);
console.log(`load average at the end (1, 5, 15 min): ${loadavg().map((l) => l.toFixed(2)).join(', ')} on ${cpus().length} cpus`);
const out = join(here, '..', 'results', 'auth.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, JSON.stringify({ machine: { cpus: cpus().length, model: cpus()[0]?.model, load_average_start: loadStart, load_average_end: loadavg() }, flood_ms: FLOOD_MS, rows }, null, 2));
console.log(`wrote ${out}`);
process.exit(0);
