// npm run bench:media — N concurrent calls (16 kHz in, 24 kHz out, echo pipeline) against
// our media node and against a `ws` + speex-resampler + fvad-wasm baseline, each in its own
// process, driven by a raw-TCP load client in a third process. Writes bench/results/media.json.
//
// `npm run bench:media -- --carrier` (or BENCH_CARRIER=1): carrier sessions instead, Twilio
// media streams on /v2/carriers/twilio/stream (μ-law 8 kHz in base64 JSON, 8 kHz both ways),
// against our media node and the same baseline parsing the JSON and μ-law in JS. Default sizes
// 100,500,1000. The rows go under `carrier` in media.json; the web rows there are kept.
//
// `npm run bench:media -- --agent` (or BENCH_AGENT=1): agent calls (server-agent.ts: the cascade
// engine with bench:turns' instant in-process providers) against our echo node and the bare uWS
// echo floor at the same N. The C client plays caller speech (espeak-ng prompts, 3 s apart) on
// the agent calls; the figure is server CPU-ms per call-second. Default sizes 100,300. The rows
// go under `agent` in media.json; the other rows there are kept.
//
// `npm run bench:media -- --self-check` (or BENCH_SELF_CHECK=1): checks the counting itself.
// Each server drops every 10th output frame of one session (BENCH_FAULT_DROP_EVERY=10, in the
// bench's server wrappers); the client must report exactly a tenth of that session's due frames
// missing, and none of any other session's. Writes no results; exits 1 on a mismatch.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, getPriority, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { admitCall, admitSession } from '../../src/sessions/admission.js';
import { createCarrier } from '../../src/db/repos/carriers.js';
import { setCallParties } from '../../src/db/repos/carrier-calls.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { nextMessage, type CarrierStart, type ClientStats, type ServerStats } from './ipc.js';
import { plotSvg } from './plot.js';
import { callerSpeechFile } from './caller-speech.js';
import { benchProject } from '../shared/bench-project.js';

const here = dirname(fileURLToPath(import.meta.url));
const CARRIER = process.argv.includes('--carrier') || process.env.BENCH_CARRIER === '1';
const AGENT = process.argv.includes('--agent') || process.env.BENCH_AGENT === '1';
const SELF_CHECK = process.argv.includes('--self-check') || process.env.BENCH_SELF_CHECK === '1';
const FAULT_EVERY = 10;
const SIZES = (process.env.BENCH_SIZES ?? (SELF_CHECK ? '100' : CARRIER ? '100,500,1000' : AGENT ? '100,300' : '100,500,1000,2000')).split(',').map(Number);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? (SELF_CHECK ? 2000 : 3000));
const MEASURE_MS = Number(process.env.BENCH_MEASURE_MS ?? (SELF_CHECK ? 4000 : 10000));
// Every session then has a whole number of 10-frame runs due, so exactly a tenth is dropped.
if (SELF_CHECK && MEASURE_MS % (20 * FAULT_EVERY) !== 0) throw new Error(`--self-check needs BENCH_MEASURE_MS a multiple of ${20 * FAULT_EVERY}`);
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
  BENCH_FAULT_DROP_EVERY: SELF_CHECK ? String(FAULT_EVERY) : '',
};

const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
// Extra node flags for the servers, e.g. `--perf-basic-prof --interpreted-frames-native-stack` for `perf record`.
const serverFlags = (process.env.BENCH_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
// Servers run with --expose-gc: the memory snapshots follow a full GC, so memory per session
// counts live memory rather than garbage not yet collected. Their young generation is
// fixed at its usual maximum (16 MiB semi-spaces): V8 grows it under the load's allocation rate
// and shrinks it when idle, which moved RSS by up to 2 × 16 MiB between the two snapshots
// whatever the sessions held (36 KiB per session at N = 500; bench/media/session-memory.ts).
const SERVER_HEAP_FLAGS = ['--expose-gc', '--min-semi-space-size=16', '--max-semi-space-size=16'];
const child = (file: string, extra: Record<string, string> = {}) =>
  fork(resolve(here, file), [], { execArgv: ['--import', 'tsx', ...(file.includes('server-') ? [...SERVER_HEAP_FLAGS, ...profile, ...serverFlags] : [])], env: { ...env, ...extra }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
// Agent calls: the C client plays this caller speech instead of the marked tone.
const speechFile = AGENT ? callerSpeechFile(join(tmpdir(), `voice-bench-caller-speech-${process.pid}.raw`)) : '';
const stats = async (p: ChildProcess, gc = false) => {
  const m = nextMessage<{ stats: ServerStats }>(p, (x) => x?.type === 'stats');
  p.send({ cmd: 'stats', gc });
  return (await m).stats;
};

// `alt` (with BENCH_ALT_TREE=<another checkout>): that checkout's server-ours.ts, against the same
// database and load, for A/B comparisons of two versions of our server in one run. `floor-dsp`:
// the floor plus the native chain the echo load requires (server-floor-dsp.ts), web only: the
// least any server doing that work on this socket layer can cost.
type ServerKind = 'ours' | 'baseline' | 'floor' | 'floor-dsp' | 'alt' | 'agent';
const SERVERS = (process.env.BENCH_SERVERS ?? (SELF_CHECK ? 'ours,baseline,floor' : AGENT ? 'agent,ours,floor' : 'ours,baseline')).split(',') as ServerKind[];
const ALT_TREE = process.env.BENCH_ALT_TREE ?? '';
/** The server list runs this many times per size (interleaved repeats of an A/B). */
const REPEAT = Number(process.env.BENCH_REPEAT ?? 1);
if (CARRIER && SERVERS.includes('floor-dsp')) throw new Error('floor-dsp serves web sessions only (BENCH_SERVERS without it for --carrier)');

interface Row {
  server: ServerKind;
  sessions: number;
  connected: number;
  cpu_ms_per_session_second: number;
  rss_kib_per_session: number;
  /** What the sessions keep alive, from the same snapshots: V8 heap in use and ArrayBuffer stores (not malloc'd native objects). */
  heap_kib_per_session: number;
  array_buffer_kib_per_session: number;
  jitter_p50_ms: number;
  jitter_p99_ms: number;
  /** Arrival − due of the window's frames that arrived while the client listened. */
  latency_p50_ms: number;
  latency_p99_ms: number;
  // Counted by the load client per session over the window (see the docs' method section):
  /** Output frames due in the window. */
  due_frames: number;
  /** Input frames of the window written (= due unless a carrier session's server stopped reading). */
  sent_frames: number;
  /** Frames due in the window that arrived within 300 ms of due. */
  received_frames: number;
  /** Σ per session max(0, due − received). */
  missing_frames: number;
  /** Received more than 60 ms after due. */
  late_frames: number;
  /** Of the missing: arrived after 300 ms, before the client stopped listening. */
  expired_frames: number;
  /** Server frames without a readable mark (should be 0). */
  unidentified_frames: number;
  sessions_with_missing: number;
  /** The server's own count of frames its output queues dropped during the window: not added to missing (the same frames are in it). */
  ring_drops: number;
  client_cpu_percent: number;
  server_cpu_percent: number;
  server_cpu_system_share: number;
  /** Agent calls: answers the engine started in the window (per call-minute below). */
  answers?: number;
  answers_per_call_minute?: number;
}

type Targets = { urls: string[]; carrier?: CarrierStart[] };

/** The client's thresholds (load-client.c), recorded with the results. */
let thresholds = { late_ms: 0, deadline_ms: 0 };

interface Measured {
  row: Row;
  /** [target index, due, missing] of each session that missed frames. */
  lossy: [number, number, number][];
  /** Frames the server dropped on purpose during the window (self-check). */
  faultDrops: number;
}

/** Sessions of the cycle that sets the memory baseline (see measure). */
const BASELINE_SESSIONS = 50;

/**
 * Runs `targets` for 2 s in a client of its own and takes the server's memory (after a full GC)
 * with them connected, then hangs up and waits until the server has no session left.
 */
async function baselineCycle(srv: ChildProcess, clientEnv: Record<string, string>, targets: Targets): Promise<{ stats: ServerStats; connected: number }> {
  const client = child('load-client.ts', clientEnv);
  await nextMessage(client, (m) => m?.type === 'ready');
  const done = nextMessage<{ stats: ClientStats }>(client, (m) => m?.type === 'done');
  client.send({ cmd: 'start', urls: targets.urls, carrier: targets.carrier, warmupMs: 1000, measureMs: 1000 });
  const { connected } = (await done).stats;
  const loaded = await stats(srv, true);
  const hungUp = nextMessage(client, (m) => m?.type === 'hung-up');
  client.send({ cmd: 'hangup' });
  await hungUp;
  client.send({ cmd: 'exit' });
  await new Promise((r) => client.once('exit', r));
  for (let i = 0; i < 50 && (await stats(srv)).sessions > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return { stats: loaded, connected };
}

async function measure(server: ServerKind, n: number, urlsFor: (port: number, count: number) => Promise<Targets>): Promise<Measured> {
  const srv = child(server === 'alt' ? join(ALT_TREE, 'bench', 'media', 'server-ours.ts') : `server-${server}.ts`);
  const died = new Promise<never>((_, reject) => srv.once('exit', (code) => reject(new Error(`${server} server exited (${code})`))));
  died.catch(() => {});
  const { port } = await Promise.race([nextMessage<{ port: number }>(srv, (m) => m?.type === 'ready'), died]);
  if (PIN) execFileSync('taskset', ['-a', '-p', '-c', '0', String(srv.pid)], { stdio: 'ignore' });
  const clientEnv: Record<string, string> = server === 'agent' ? { BENCH_CLIENT_SPEECH: speechFile } : {};
  // Memory per session is the growth from BASELINE_SESSIONS connected sessions to N, over the
  // N − BASELINE_SESSIONS more (every server the same way). Measured from the fresh idle
  // process it counted one-off growth as per-session memory: JIT code, the first buffers of
  // uWS, Postgres and Redis, the heap V8 keeps committed once it has served a load.
  // Not in the self-check: its fault would pick a session of this cycle.
  const baseline = n > BASELINE_SESSIONS && !SELF_CHECK ? await baselineCycle(srv, clientEnv, await urlsFor(port, BASELINE_SESSIONS)) : null;
  const client = child('load-client.ts', clientEnv);
  await nextMessage(client, (m) => m?.type === 'ready');
  const { urls, carrier } = await urlsFor(port, n);
  const idle = baseline?.stats ?? (await stats(srv, true));
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
  // GC pause inside its 300 ms grace delayed the frames still in flight and counted them missing.
  const mem = await stats(srv, true);
  const hungUp = nextMessage(client, (m) => m?.type === 'hung-up');
  client.send({ cmd: 'hangup' });
  await hungUp;
  srv.send({ cmd: 'exit' });
  client.send({ cmd: 'exit' });
  await Promise.all([new Promise((r) => srv.once('exit', r)), new Promise((r) => client.once('exit', r))]);
  const memSessions = c.connected - (baseline?.connected ?? 0);
  const serverCpuMs = after.cpuUserMs + after.cpuSystemMs - before.cpuUserMs - before.cpuSystemMs;
  const row: Row = {
    server,
    sessions: n,
    connected: c.connected,
    cpu_ms_per_session_second: round(serverCpuMs / (c.connected * windowS), 4),
    rss_kib_per_session: round((mem.rssBytes - idle.rssBytes) / 1024 / memSessions, 1),
    heap_kib_per_session: round((mem.heapUsedBytes - idle.heapUsedBytes) / 1024 / memSessions, 1),
    array_buffer_kib_per_session: round((mem.arrayBufferBytes - idle.arrayBufferBytes) / 1024 / memSessions, 1),
    jitter_p50_ms: c.jitterP50Ms,
    jitter_p99_ms: c.jitterP99Ms,
    latency_p50_ms: c.latencyP50Ms,
    latency_p99_ms: c.latencyP99Ms,
    due_frames: c.dueFrames,
    sent_frames: c.sentFrames,
    received_frames: c.receivedFrames,
    missing_frames: c.missingFrames,
    late_frames: c.lateFrames,
    expired_frames: c.expiredFrames,
    unidentified_frames: c.unidentifiedFrames,
    sessions_with_missing: c.lossy.length,
    ring_drops: after.ringDrops - before.ringDrops,
    client_cpu_percent: round((c.cpuMs / c.windowMs) * 100, 1),
    server_cpu_percent: round((serverCpuMs / (windowS * 1000)) * 100, 1),
    server_cpu_system_share: round((after.cpuSystemMs - before.cpuSystemMs) / serverCpuMs, 2),
  };
  if (server === 'agent') {
    row.answers = (after.answers ?? 0) - (before.answers ?? 0);
    row.answers_per_call_minute = round(row.answers / (c.connected * windowS / 60), 2);
  }
  thresholds = { late_ms: c.lateMs, deadline_ms: c.deadlineMs };
  return { row, lossy: c.lossy, faultDrops: after.faultDrops - before.faultDrops };
}

/** Self-check of one run: the faulty session, and only it, misses exactly every 10th due frame. */
function selfCheck(m: Measured): string[] {
  const { row, lossy } = m;
  const problems: string[] = [];
  if (row.connected !== row.sessions) problems.push(`${row.sessions - row.connected} sessions did not connect`);
  if (row.ring_drops || row.unidentified_frames) problems.push(`ring drops ${row.ring_drops}, unidentified frames ${row.unidentified_frames} (the run must be clean apart from the fault)`);
  if (lossy.length !== 1) problems.push(`${lossy.length} sessions missed frames, expected exactly 1: ${JSON.stringify(lossy.slice(0, 5))}`);
  for (const [i, due, missing] of lossy.slice(0, 1)) {
    if (missing !== due / FAULT_EVERY) problems.push(`session #${i}: ${missing} of ${due} due frames missing, expected ${due / FAULT_EVERY}`);
  }
  if (row.missing_frames !== (lossy[0]?.[1] ?? 0) / FAULT_EVERY) problems.push(`total missing ${row.missing_frames}`);
  return problems;
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;

const config = loadConfig(env);
const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix });
const rows: Row[] = [];
let failures = 0;
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
  const bench = await benchProject(ctx, 'media');

  // Carrier sessions: a Twilio carrier of the project, and outbound phone sessions admitted as
  // admitOutbound does (8 kHz both ways, carrier and numbers set) but keeping their token, as
  // the dial job would hand it to Twilio in the TwiML's <Parameter>s.
  const accountSid = `AC${randomBytes(16).toString('hex')}`;
  const carrierRow = CARRIER
    ? await createCarrier(ctx, bench.projectId, { kind: 'twilio', label: 'bench', credentials: { account_sid: accountSid, auth_token: randomBytes(16).toString('hex') }, baseUrl: null })
    : null;
  const carrierTargets = async (port: number, n: number, real: boolean): Promise<Targets> => {
    const urls = Array.from({ length: n }, () => `ws://127.0.0.1:${port}/v2/carriers/twilio/stream`);
    const carrier: CarrierStart[] = [];
    for (let i = 0; i < n; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, n - i) }, async (): Promise<CarrierStart> => {
          const callSid = `CA${randomBytes(16).toString('hex')}`;
          if (!real) return { sessionId: '00000000-0000-0000-0000-000000000000', token: 'x', accountSid, callSid };
          const { row, token } = await admitCall(ctx, bench.projectId, {
            direction: 'outbound', agent_id: bench.agentId, variables: {}, sample_rate_in: 8000, sample_rate_out: 8000, encoding: 'pcm16', tokenTtlSeconds: 600,
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
      const measured = await measure(server, n, async (port, count) => {
        const real = server === 'ours' || server === 'alt' || server === 'agent';
        if (CARRIER) return carrierTargets(port, count, real);
        if (!real) return { urls: Array.from({ length: count }, (_, i) => `ws://127.0.0.1:${port}/stream?id=${i}`) };
        const urls: string[] = [];
        for (let i = 0; i < count; i += 50) {
          const batch = await Promise.all(
            Array.from({ length: Math.min(50, count - i) }, () =>
              admitSession(ctx, bench.projectId, { agent_id: bench.agentId, sample_rate_in: 16000, sample_rate_out: 24000, variables: {}, encoding: 'pcm16' }),
            ),
          );
          for (const b of batch) urls.push(b.ws_url.replace(/:\d+\//, `:${port}/`));
        }
        return { urls };
      });
      const { row } = measured;
      rows.push(row);
      console.log(JSON.stringify(row));
      if (SELF_CHECK) {
        const problems = selfCheck(measured);
        const [i, due, missing] = measured.lossy[0] ?? [-1, 0, 0];
        console.log(
          `self-check ${server} N=${n}: session #${i} missed ${missing} of ${due} due frames (the server dropped ${measured.faultDrops} in the window), ` +
            `all sessions ${row.missing_frames} missing, ${row.late_frames} late: ${problems.length ? `FAIL\n  ${problems.join('\n  ')}` : 'ok'}`,
        );
        if (problems.length) failures++;
      }
    }
  }
} finally {
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch(() => {});
  rmSync(clientBin, { force: true });
  if (speechFile) rmSync(speechFile, { force: true });
}

const pad = (v: unknown, w: number) => String(v).padStart(w);
if (AGENT) {
  console.log('\nagent calls: unidentified = the agent\'s output frames (no marks); jitter only within agent turns; missing/late do not apply to agent rows');
  for (const r of rows.filter((x) => x.server === 'agent')) {
    console.log(`agent N=${r.sessions}: ${r.answers} answers (${r.answers_per_call_minute} per call-minute), ${r.unidentified_frames} output frames`);
  }
}
console.log(`\n${AGENT ? 'agent calls (PCM16 16 → 24 kHz, caller speech) with echo rows of the same run' : CARRIER ? 'carrier sessions (Twilio media streams, μ-law 8 kHz)' : 'web sessions (PCM16 16 → 24 kHz)'}`);
console.log(
  `frames of the window: missing = not there ${thresholds.deadline_ms} ms after due (per session, never below 0), late = there ${thresholds.late_ms}–${thresholds.deadline_ms} ms after due; ` +
    `ring drops = the server's own count (among the missing, not added)`,
);
console.log('server    N     conn  CPU-ms/sess-s  RSS KiB/sess  jitter p50  p99 ms  latency p50  p99 ms      sent  received  missing     late  ring drops  server CPU%  client CPU%');
for (const r of rows) {
  console.log(
    `${r.server.padEnd(9)}${pad(r.sessions, 5)}${pad(r.connected, 8)}${pad(r.cpu_ms_per_session_second, 15)}${pad(r.rss_kib_per_session, 14)}` +
      `${pad(r.jitter_p50_ms, 12)}${pad(r.jitter_p99_ms, 8)}${pad(r.latency_p50_ms, 13)}${pad(r.latency_p99_ms, 8)}${pad(r.sent_frames, 10)}${pad(r.received_frames, 10)}${pad(r.missing_frames, 9)}${pad(r.late_frames, 9)}` +
      `${pad(r.ring_drops, 12)}${pad(r.server_cpu_percent, 13)}${pad(r.client_cpu_percent, 13)}`,
  );
}
// CPU against the bare floor of the same size (means over BENCH_REPEAT runs).
for (const n of SIZES) {
  const mean = (s: ServerKind) => {
    const xs = rows.filter((r) => r.server === s && r.sessions === n).map((r) => r.cpu_ms_per_session_second);
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN;
  };
  const floor = mean('floor');
  if (!(floor > 0)) continue;
  const others = SERVERS.filter((s, i) => s !== 'floor' && SERVERS.indexOf(s) === i);
  console.log(`N=${n}: CPU × the bare floor (${round(floor, 3)} ms): ${others.map((s) => `${s} ${round(mean(s) / floor, 2)}×`).join(', ')}`);
}
if (SELF_CHECK) {
  console.log(failures ? `\nself-check FAILED in ${failures} of ${rows.length} runs` : `\nself-check passed (${rows.length} runs)`);
  process.exit(failures ? 1 : 0);
}
const out = join(here, '..', 'results', 'media.json');
mkdirSync(dirname(out), { recursive: true });
const previous = existsSync(out) ? JSON.parse(readFileSync(out, 'utf8')) : null;
const counting = {
  due: 'per session, the output frames whose input frame the client scheduled inside the window (warm-up frames excluded); frames are known by a mark carried in the audio',
  received: 'frames due in the window that arrived within deadline_ms of due',
  missing: 'sum over sessions of max(0, due - received)',
  late: 'received more than late_ms after due',
  ring_drops: "the server's own count of output frames its queues dropped during the window; the same frames are among the missing, never added to them",
  ...thresholds,
};
const run = { date: new Date().toISOString(), node: process.version, machine, loadavg_at_end: loadavg().map((v) => round(v, 2)), warmup_ms: WARMUP_MS, measure_ms: MEASURE_MS, counting, rows };
// One file for both modes: a web run keeps the last carrier run and the other way round.
const result = AGENT
  ? { ...(previous ?? {}), agent: { ...run, note: 'agent calls: cascade engine with instant in-process providers (bench/turns/fakes.ts), caller speech from the C client; ours/floor rows are echo sessions of the same run' } }
  : CARRIER
    ? { ...(previous ?? {}), carrier: { ...run, note: 'Twilio media streams on /v2/carriers/twilio/stream: μ-law 8 kHz base64 JSON in and out; baseline = ws + JSON + base64 + JS μ-law tables + fvad at 8 kHz' } }
    : { ...run, ...(previous?.carrier ? { carrier: previous.carrier } : {}), ...(previous?.agent ? { agent: previous.agent } : {}) };
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
writeFileSync(out.replace(/\.json$/, '.svg'), plotSvg(result.rows ?? [], result.carrier?.rows ?? []));
console.log(`\nwrote ${out} and media.svg`);
