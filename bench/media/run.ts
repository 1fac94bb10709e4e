// npm run bench:media — N concurrent calls (16 kHz in, 24 kHz out, echo pipeline) against
// our media node and against a `ws` + speex-resampler + fvad-wasm baseline, each in its own
// process, driven by a raw-TCP load client in a third process. Writes bench/results/media.json.
//
// `npm run bench:media -- --carrier` (or BENCH_CARRIER=1): carrier sessions instead, Twilio
// media streams on /v2/carriers/twilio/stream (μ-law 8 kHz in base64 JSON, 8 kHz both ways),
// against our media node and the same baseline parsing the JSON and μ-law in JS. Default sizes
// 100,500,1000. The rows go under `carrier` in media.json; the web rows there are kept.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, getPriority, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { createProject, setProjectLimits } from '../../src/db/repos/projects.js';
import { admitCall, admitSession } from '../../src/sessions/admission.js';
import { createCarrier } from '../../src/db/repos/carriers.js';
import { setCallParties } from '../../src/db/repos/carrier-calls.js';
import { walletCredit } from '../../src/sessions/wallet.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { nextMessage, type CarrierStart, type ClientStats, type ServerStats } from './ipc.js';
import { plotSvg } from './plot.js';

const here = dirname(fileURLToPath(import.meta.url));
const CARRIER = process.argv.includes('--carrier') || process.env.BENCH_CARRIER === '1';
const SIZES = (process.env.BENCH_SIZES ?? (CARRIER ? '100,500,1000' : '100,500,1000,2000')).split(',').map(Number);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3000);
const MEASURE_MS = Number(process.env.BENCH_MEASURE_MS ?? 10000);
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `voice_bench_${process.pid}`;
const redisPrefix = `vc:bench:${process.pid}:`;
// The load client (load-client.c), built here with the system's cc.
const clientBin = join(tmpdir(), `voice-bench-load-client-${process.pid}`);
execFileSync('cc', ['-O2', '-Wall', '-o', clientBin, join(here, 'load-client.c'), '-lm'], { stdio: 'inherit' });
// BENCH_PIN=1: each server on CPU 0 and the C client on CPU 1, so neither steals the other's core.
const PIN = process.env.BENCH_PIN === '1';
const env = {
  ...process.env,
  DATABASE_URL: `${PG_BASE}/${dbName}`,
  BENCH_REDIS_PREFIX: redisPrefix,
  LOG_LEVEL: 'silent',
  BENCH_CLIENT_BIN: clientBin,
  BENCH_CLIENT_CPU: PIN ? '1' : '',
};

const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
// Extra node flags for the servers, e.g. `--perf-basic-prof --interpreted-frames-native-stack` for `perf record`.
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
// Servers run with --expose-gc: the idle and final RSS snapshots follow a full GC, so RSS per
// session counts live memory rather than garbage not yet collected.
const child = (file: string) => fork(resolve(here, file), [], { execArgv: ['--import', 'tsx', ...(file.includes('server-') ? ['--expose-gc', ...profile, ...serverFlags] : [])], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const stats = async (p: ChildProcess, gc = false) => {
  const m = nextMessage<{ stats: ServerStats }>(p, (x) => x?.type === 'stats');
  p.send({ cmd: 'stats', gc });
  return (await m).stats;
};

// `alt` (with BENCH_ALT_TREE=<another checkout>): that checkout's server-ours.ts, against the same
// database and load, for A/B comparisons of two versions of our server in one run.
type ServerKind = 'ours' | 'baseline' | 'floor' | 'alt';
const SERVERS = (process.env.BENCH_SERVERS ?? 'ours,baseline').split(',') as ServerKind[];
const ALT_TREE = process.env.BENCH_ALT_TREE ?? '';
/** The server list runs this many times per size (interleaved repeats of an A/B). */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);

interface Row {
  server: ServerKind;
  sessions: number;
  connected: number;
  cpu_ms_per_session_second: number;
  rss_kib_per_session: number;
  jitter_p50_ms: number;
  jitter_p99_ms: number;
  dropped_frames: number;
  sent_frames: number;
  received_frames: number;
  client_cpu_percent: number;
  server_cpu_percent: number;
  server_cpu_system_share: number;
}

type Targets = { urls: string[]; carrier?: CarrierStart[] };

async function measure(server: ServerKind, n: number, urlsFor: (port: number) => Promise<Targets>): Promise<Row> {
  const srv = child(server === 'alt' ? join(ALT_TREE, 'bench', 'media', 'server-ours.ts') : `server-${server}.ts`);
  const died = new Promise<never>((_, reject) => srv.once('exit', (code) => reject(new Error(`${server} server exited (${code})`))));
  died.catch(() => {});
  const { port } = await Promise.race([nextMessage<{ port: number }>(srv, (m) => m?.type === 'ready'), died]);
  if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '0', String(srv.pid)], { stdio: 'ignore' });
  const client = child('load-client.ts');
  await nextMessage(client, (m) => m?.type === 'ready');
  const { urls, carrier } = await urlsFor(port);
  const idle = await stats(srv, true);
  const done = nextMessage<{ stats: ClientStats }>(client, (m) => m?.type === 'done');
  // Sample the server over exactly the client's measuring window.
  const started = nextMessage(client, (m) => m?.type === 'measure-start');
  const ended = nextMessage(client, (m) => m?.type === 'measure-end');
  client.send({ cmd: 'start', urls, carrier, warmupMs: WARMUP_MS, measureMs: MEASURE_MS });
  await started;
  const before = await stats(srv);
  const t0 = performance.now();
  await ended;
  const after = await stats(srv);
  const windowS = (performance.now() - t0) / 1000;
  const c = (await done).stats;
  // RSS after a full GC once the client has counted the last frames (calls still connected): a
  // GC pause inside its 300 ms grace delayed the frames still in flight and counted them dropped.
  const mem = await stats(srv, true);
  const hungUp = nextMessage(client, (m) => m?.type === 'hung-up');
  client.send({ cmd: 'hangup' });
  await hungUp;
  srv.send({ cmd: 'exit' });
  client.send({ cmd: 'exit' });
  await Promise.all([new Promise((r) => srv.once('exit', r)), new Promise((r) => client.once('exit', r))]);
  const serverCpuMs = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  return {
    server,
    sessions: n,
    connected: c.connected,
    cpu_ms_per_session_second: round(serverCpuMs / (c.connected * windowS), 4),
    rss_kib_per_session: round((mem.rssBytes - idle.rssBytes) / 1024 / c.connected, 1),
    jitter_p50_ms: c.jitterP50Ms,
    jitter_p99_ms: c.jitterP99Ms,
    dropped_frames: Math.max(0, c.sentFrames - c.receivedFrames) + after.droppedFrames,
    sent_frames: c.sentFrames,
    received_frames: c.receivedFrames,
    client_cpu_percent: round((c.cpuMs / c.windowMs) * 100, 1),
    server_cpu_percent: round((serverCpuMs / (windowS * 1000)) * 100, 1),
    server_cpu_system_share: round((after.cpuSystemMs - before.cpuSystemMs) / serverCpuMs, 2),
  };
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

const config = loadConfig(env);
const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix });
const rows: Row[] = [];
// niceness of the benchmark (children inherit it) and a free-text note (BENCH_NOTE) on the conditions.
const machine = {
  cpus: cpus().length,
  cpu_model: cpus()[0]?.model ?? '',
  loadavg_at_start: loadavg().map((v) => round(v, 2)),
  niceness: getPriority(),
  load_client: 'c',
  pinned: PIN,
  note: process.env.BENCH_NOTE ?? '',
};
try {
  const account = await createAccount(ctx, `bench-${process.pid}@example.com`, 'bench password 123', true);
  const project = await createProject(ctx, account.id, 'bench');
  await setProjectLimits(ctx, project.id, { max_concurrent_sessions: 100_000 });
  await walletCredit(ctx, project.id, 10n ** 15n);
  const accountIds: string[] = [];
  for (let i = 0; i < 3; i++) {
    const [r] = await ctx.sql`insert into provider_accounts (project_id, provider, label, status) values (${project.id}, 'local', 'local', 'verified') returning id`;
    accountIds.push(r.id);
  }
  const pipeline = { stt: { account_id: accountIds[0], model: 'pocketsphinx-en-us' }, llm: { account_id: accountIds[1], model: 'echo' }, tts: { account_id: accountIds[2], model: 'espeak-ng', voice: 'en' } };
  const [agent] = await ctx.sql`
    insert into agents (project_id, name, prompt, language, pipeline_mode, pipeline_config, backchannel, can_send_dtmf,
      record_calls, store_transcript, webhook_include_transcript, webhook_include_recording_url, webhook_secret_sealed)
    values (${project.id}, 'bench', 'echo', 'en-US', 'cascade', ${ctx.sql.json(pipeline)}, false, false, false, false, false, false, 'x')
    returning id`;

  // Carrier sessions: a Twilio carrier of the project, and outbound phone sessions admitted as
  // admitOutbound does (8 kHz both ways, carrier and numbers set) but keeping their token, as
  // the dial job would hand it to Twilio in the TwiML's <Parameter>s.
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const carrierRow = CARRIER
    ? await createCarrier(ctx, project.id, { kind: 'twilio', label: 'bench', credentials: { account_sid: accountSid, auth_token: randomBytes(16).toString('hex') }, baseUrl: null })
    : null;
  const carrierTargets = async (port: number, n: number, real: boolean): Promise<Targets> => {
    const urls = Array.from({ length: n }, () => `ws://127.0.0.1:${port}/v2/carriers/twilio/stream`);
    const carrier: CarrierStart[] = [];
    for (let i = 0; i < n; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, async (): Promise<CarrierStart> => {
          const callSid = `CA${randomBytes(16).toString('hex')}`;
          if (!real) return { sessionId: '00000000-0000-0000-0000-000000000000', token: 'x', accountSid, callSid };
          const { row, token } = await admitCall(ctx, project.id, {
            direction: 'outbound', agent_id: agent.id, variables: {}, sample_rate_in: 8000, sample_rate_out: 8000, encoding: 'pcm16', tokenTtlSeconds: 600,
            finish: (tx, inserted) => setCallParties(tx, inserted.id, { carrierId: carrierRow!.id, fromE164: '+14155550100', toE164: '+14155559999', callSid }),
          });
          return { sessionId: row.id, token, accountSid, callSid };
        }),
      );
      carrier.push(...batch);
    }
    return { urls, carrier };
  };

  for (const n of SIZES) {
    for (const server of Array.from({ length: REPEAT }, () => SERVERS).flat()) {
      const row = await measure(server, n, async (port) => {
        const real = server === 'ours' || server === 'alt';
        if (CARRIER) return carrierTargets(port, n, real);
        if (!real) return { urls: Array.from({ length: n }, (_, i) => `ws://127.0.0.1:${port}/stream?id=${i}`) };
        const urls: string[] = [];
        for (let i = 0; i < n; i += 50) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(50, n - i) }, () =>
              admitSession(ctx, project.id, { agent_id: agent.id, sample_rate_in: 16000, sample_rate_out: 24000, variables: {}, encoding: 'pcm16' }),
            ),
          );
          for (const b of batch) urls.push(b.ws_url.replace(/:\d+\//, `:${port}/`));
        }
        return { urls };
      });
      rows.push(row);
      console.log(JSON.stringify(row));
    }
  }
} finally {
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch(() => {});
  rmSync(clientBin, { force: true });
}

const pad = (v: unknown, w: number) => String(v).padStart(w);
console.log(`\n${CARRIER ? 'carrier sessions (Twilio media streams, μ-law 8 kHz)' : 'web sessions (PCM16 16 → 24 kHz)'}`);
console.log('server    N     conn  CPU-ms/sess-s  RSS KiB/sess  jitter p50  p99 ms  dropped  server CPU%  client CPU%');
for (const r of rows) {
  console.log(
    `${r.server.padEnd(9)}${pad(r.sessions, 5)}${pad(r.connected, 8)}${pad(r.cpu_ms_per_session_second, 15)}${pad(r.rss_kib_per_session, 14)}` +
      `${pad(r.jitter_p50_ms, 12)}${pad(r.jitter_p99_ms, 8)}${pad(r.dropped_frames, 9)}${pad(r.server_cpu_percent, 13)}${pad(r.client_cpu_percent, 13)}`,
  );
}
const out = join(here, '..', 'results', 'media.json');
mkdirSync(dirname(out), { recursive: true });
const previous = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
const run = { date: new Date().toISOString(), node: process.version, machine, loadavg_at_end: loadavg().map((v) => round(v, 2)), warmup_ms: WARMUP_MS, measure_ms: MEASURE_MS, rows };
// One file for both modes: a web run keeps the last carrier run and the other way round.
const result = CARRIER
  ? { ...(previous ?? {}), carrier: { ...run, note: 'Twilio media streams on /v2/carriers/twilio/stream: μ-law 8 kHz base64 JSON in and out; baseline = ws + JSON + base64 + JS μ-law tables + fvad at 8 kHz' } }
  : { ...run, ...(previous?.carrier ? { carrier: previous.carrier } : {}) };
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(out.replace(/\.json$/, '.svg'), plotSvg(result.rows ?? [], result.carrier?.rows ?? []));
console.log(`\nwrote ${out} and media.svg`);
