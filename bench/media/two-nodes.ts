// npx tsx bench/media/two-nodes.ts — two media processes behind the node registry (issue 21):
// two of our media nodes (server-ours.ts, echo pipeline), each registered in Redis with room for
// BENCH_NODE_CAPACITY calls, N = 2 × BENCH_PER_NODE sessions admitted through admission (which
// picks the least-loaded node for each and builds its ws_url from that node's URL), all driven
// by one C load client (load-client.c) in a third process. Printed: dropped (missing) and late
// frames, jitter and latency p50/p99, the split of the calls between the nodes (by the port in
// each ws_url and by the nodes' own session counts) and each node's CPU. Run under
// `flock /tmp/bench.lock`; the load average is printed. Writes bench/results/media-two-nodes.json.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { admitSession } from '../../src/sessions/admission.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { nextMessage, type ClientStats, type ServerStats } from './ipc.js';
import { benchProject } from '../shared/bench-project.js';

const here = dirname(fileURLToPath(import.meta.url));
const PER_NODE = Number(process.env.BENCH_PER_NODE ?? 400);
const CAPACITY = Number(process.env.BENCH_NODE_CAPACITY ?? 1000);
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 3000);
const MEASURE_MS = Number(process.env.BENCH_MEASURE_MS ?? 10000);
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `voice_bench_two_${process.pid}`;
const redisPrefix = `vc:bench-two:${process.pid}:`;
const clientBin = join(tmpdir(), `voice-bench-load-client-two-${process.pid}`);
execFileSync('cc', ['-O2', '-Wall', '-o', clientBin, join(here, 'load-client.c'), '-lm'], { stdio: 'inherit' });
const env = { ...process.env, DATABASE_URL: `${PG_BASE}/${dbName}`, BENCH_REDIS_PREFIX: redisPrefix, LOG_LEVEL: 'silent', BENCH_CLIENT_BIN: clientBin, BENCH_REGISTER: String(CAPACITY) };
const child = (file: string) =>
  fork(resolve(here, file), [], { execArgv: ['--import', 'tsx', ...(file.startsWith('server-') ? ['--expose-gc'] : [])], env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
const stats = async (p: ChildProcess) => {
  const m = nextMessage<{ stats: ServerStats }>(p, (x) => x?.type === 'stats');
  p.send({ cmd: 'stats' });
  return (await m).stats;
};
const round = (v: number, d = 2) => Math.round(v * 10 ** d) / 10 ** d;
const loadAtStart = loadavg().map((v) => round(v));

const config = loadConfig(env);
const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix });
const nodes: { proc: ChildProcess; port: number }[] = [];
let result: Record<string, unknown> = {};
try {
  const bench = await benchProject(ctx, 'two');

  for (let i = 0; i < 2; i++) {
    const proc = child('server-ours.ts');
    const { port } = await nextMessage<{ port: number }>(proc, (m) => m?.type === 'ready');
    nodes.push({ proc, port });
  }
  // Both entries are in the registry after their first heartbeat.
  await new Promise((r) => setTimeout(r, 1500));

  const urls: string[] = [];
  const n = 2 * PER_NODE;
  for (let i = 0; i < n; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, n - i) }, () => admitSession(ctx, bench.projectId, { agent_id: bench.agentId as string, sample_rate_in: 16000, sample_rate_out: 24000, variables: {}, encoding: 'pcm16' })),
    );
    urls.push(...batch.map((b) => b.ws_url));
  }
  const byUrl = nodes.map(({ port }) => urls.filter((u) => new URL(u).port === String(port)).length);

  const client = child('load-client.ts');
  await nextMessage(client, (m) => m?.type === 'ready');
  const done = nextMessage<{ stats: ClientStats }>(client, (m) => m?.type === 'done');
  const started = nextMessage(client, (m) => m?.type === 'measure-start');
  const ended = nextMessage(client, (m) => m?.type === 'measure-end');
  client.send({ cmd: 'start', urls, warmupMs: WARMUP_MS, measureMs: MEASURE_MS });
  await started;
  const before = await Promise.all(nodes.map((x) => stats(x.proc)));
  const t0 = performance.now();
  await ended;
  const after = await Promise.all(nodes.map((x) => stats(x.proc)));
  const windowS = (performance.now() - t0) / 1000;
  const c = (await done).stats;
  const hungUp = nextMessage(client, (m) => m?.type === 'hung-up');
  client.send({ cmd: 'hangup' });
  await hungUp;
  client.send({ cmd: 'exit' });

  const perNode = nodes.map((x, i) => {
    const cpuMs = after[i].cpuUserMs + after[i].cpuSystemMs - before[i].cpuUserMs - before[i].cpuSystemMs;
    return {
      port: x.port,
      admitted_to: byUrl[i],
      sessions_seen: after[i].sessions,
      cpu_percent: round((cpuMs / (windowS * 1000)) * 100, 1),
      cpu_ms_per_session_second: round(cpuMs / (after[i].sessions * windowS), 3),
      ring_drops: after[i].ringDrops - before[i].ringDrops,
    };
  });
  const split = Math.abs(byUrl[0] - byUrl[1]) / (n / 2);
  result = {
    date: new Date().toISOString(),
    node: process.version,
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model ?? '', loadavg_at_start: loadAtStart, loadavg_at_end: loadavg().map((v) => round(v)) },
    sessions: n,
    node_capacity: CAPACITY,
    warmup_ms: WARMUP_MS,
    measure_ms: MEASURE_MS,
    connected: c.connected,
    due_frames: c.dueFrames,
    received_frames: c.receivedFrames,
    missing_frames: c.missingFrames,
    late_frames: c.lateFrames,
    sessions_with_missing: c.lossy.length,
    jitter_p50_ms: c.jitterP50Ms,
    jitter_p99_ms: c.jitterP99Ms,
    latency_p50_ms: c.latencyP50Ms,
    latency_p99_ms: c.latencyP99Ms,
    client_cpu_percent: round((c.cpuMs / c.windowMs) * 100, 1),
    split_difference: round(split, 3),
    nodes: perNode,
  };
} finally {
  for (const x of nodes) x.proc.send({ cmd: 'exit' });
  await Promise.all(nodes.map((x) => new Promise((r) => (x.proc.exitCode !== null ? r(null) : x.proc.once('exit', r)))));
  const keys = await ctx.redis.keys(`${redisPrefix}*`);
  if (keys.length) await ctx.redis.del(...keys);
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch(() => {});
  rmSync(clientBin, { force: true });
}

const r = result as { nodes: { port: number; admitted_to: number; sessions_seen: number; cpu_percent: number; cpu_ms_per_session_second: number; ring_drops: number }[] } & Record<string, number>;
console.log(`\ntwo media nodes behind the registry, N = ${r.sessions} echo sessions (load average ${loadAtStart.join(' ')} at the start, ${loadavg().map((v) => round(v)).join(' ')} at the end)`);
console.log(`connected ${r.connected}; frames due ${r.due_frames}, received ${r.received_frames}, missing (dropped) ${r.missing_frames} in ${r.sessions_with_missing} sessions, late ${r.late_frames}`);
console.log(`jitter p50 ${r.jitter_p50_ms} ms, p99 ${r.jitter_p99_ms} ms; latency p50 ${r.latency_p50_ms} ms, p99 ${r.latency_p99_ms} ms; client CPU ${r.client_cpu_percent} %`);
for (const x of r.nodes) console.log(`node :${x.port}: admitted ${x.admitted_to}, sessions ${x.sessions_seen}, CPU ${x.cpu_percent} % (${x.cpu_ms_per_session_second} CPU-ms/session-s), ring drops ${x.ring_drops}`);
console.log(`split: ${r.nodes.map((x) => x.admitted_to).join(' / ')} (difference ${(r.split_difference * 100).toFixed(1)} % of a node's share)`);
const out = join(here, '..', 'results', 'media-two-nodes.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
console.log(`wrote ${out}`);
