// npx tsx bench/media/session-memory.ts — what one echo session really keeps in our media server
// (issue 21). Starts server-ours.ts as bench:media does (own process, --expose-gc), with
// memory-probe.ts loaded, and runs MEM_CYCLES cycles of N sessions (admitted through admission,
// driven by the C load client for MEM_SEND_MS of 20 ms frames, then hung up). Before the first
// cycle, with the N sessions of each cycle connected, and after each hang-up it samples the
// server after a full GC: RSS, V8 heap used, external (ArrayBuffer) memory. Printed per session:
//   - "cold": loaded − idle before any session, which is how bench:media measured until now;
//     it counts the process's one-off growth (JIT code, uWS and Postgres buffers, malloc arenas);
//   - "warm": loaded − idle after an earlier cycle of N sessions came and went: per-session
//     memory alone;
//   - "freed": loaded − idle after the same cycle's hang-up.
// MEM_SNAPSHOT=1 also writes heap snapshots at the last warm idle and with the last cycle's
// sessions connected, and prints their difference per session by kind of object (snapshots
// make the process grow, so RSS figures of such a run are not comparable: they are flagged).
// Needs gdb (`apt-get install gdb`) for glibc's malloc figures.
// Env: MEM_SERVER (ours, or floor), MEM_SERVER_FLAGS (extra node flags for the server), MEM_TRIM=1 (RSS again after malloc_trim(0)), MEM_SESSIONS (500), MEM_CYCLES (2), MEM_SEND_MS (4000), MEM_SETTLE_MS (2000: wait after
// the load before the loaded sample, sampled again after it, for GC/allocator timing).
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { admitSession } from '../../src/sessions/admission.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { nextMessage, type ClientStats, type ServerStats } from './ipc.js';
import type { MemorySample } from './memory-probe.js';
import { diffSummaries, summarizeHeapSnapshot } from './heap-summary.js';
import { benchProject } from '../shared/bench-project.js';

const here = dirname(fileURLToPath(import.meta.url));
const N = Number(process.env.MEM_SESSIONS ?? 500);
const CYCLES = Number(process.env.MEM_CYCLES ?? 2);
const SEND_MS = Number(process.env.MEM_SEND_MS ?? 4000);
const SETTLE_MS = Number(process.env.MEM_SETTLE_MS ?? 2000);
const SNAPSHOT = process.env.MEM_SNAPSHOT === '1';
const TRIM = process.env.MEM_TRIM === '1';
const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
const dbName = `voice_bench_mem_${process.pid}`;
const redisPrefix = `vc:bench-mem:${process.pid}:`;
const clientBin = join(tmpdir(), `voice-bench-load-client-mem-${process.pid}`);
execFileSync('cc', ['-O2', '-Wall', '-o', clientBin, join(here, 'load-client.c'), '-lm'], { stdio: 'inherit' });
const env = { ...process.env, DATABASE_URL: `${PG_BASE}/${dbName}`, BENCH_REDIS_PREFIX: redisPrefix, LOG_LEVEL: 'silent', BENCH_CLIENT_BIN: clientBin };
const child = (file: string, execArgv: string[], stderr: 'inherit' | 'pipe' = 'inherit') =>
  fork(resolve(here, file), [], { execArgv: ['--import', 'tsx', ...execArgv], env, stdio: ['ignore', 'inherit', stderr, 'ipc'] });

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const kib = (bytes: number) => Math.round(bytes / 102.4) / 10;
const mib = (bytes: number) => Math.round(bytes / 104857.6) / 10;

interface Sample extends MemorySample {
  mallocInUse: number;
  mallocSystem: number;
  /** RSS after malloc_trim(0) (MEM_TRIM=1; else = rss). */
  rssTrimmed: number;
}

async function memory(srv: ChildProcess, snapshot?: string): Promise<Sample> {
  const ask = async (snap?: string) => {
    const m = nextMessage<{ sample: MemorySample }>(srv, (x) => x?.type === 'memory');
    srv.send({ cmd: 'memory', snapshot: snap });
    return (await m).sample;
  };
  const s = await ask(snapshot);
  const malloc = await mallocStats(srv.pid!, false);
  let rssTrimmed = s.rss;
  if (TRIM) {
    await mallocStats(srv.pid!, true);
    rssTrimmed = (await ask()).rss;
  }
  return { ...s, mallocInUse: malloc.inUse, mallocSystem: malloc.system, rssTrimmed };
}

/** The server's stderr, where glibc's malloc_stats() prints. */
let serverStderr = '';

/**
 * glibc's own count of the server's malloc heap (gdb calls malloc_stats() in it): bytes in use
 * (live native objects, ArrayBuffer stores, V8's malloc'd bookkeeping) and bytes it holds from the
 * system. With `trim`, malloc_trim(0) then gives free pages back first.
 */
async function mallocStats(pid: number, trim: boolean): Promise<{ inUse: number; system: number }> {
  serverStderr = '';
  execFileSync('gdb', ['-p', String(pid), '-batch', ...(trim ? ['-ex', 'call (int)malloc_trim(0)'] : []), '-ex', 'call (void)malloc_stats()'], { stdio: 'ignore' });
  await sleep(100); // its stderr reaches this process
  const total = /Total \(incl\. mmap\):\s*system bytes\s*=\s*(\d+)\s*in use bytes\s*=\s*(\d+)/.exec(serverStderr);
  if (!total) throw new Error(`no malloc_stats output from the server: ${serverStderr.slice(-300)}`);
  return { system: Number(total[1]), inUse: Number(total[2]) };
}

async function sessions(srv: ChildProcess): Promise<number> {
  const m = nextMessage<{ stats: ServerStats }>(srv, (x) => x?.type === 'stats');
  srv.send({ cmd: 'stats' });
  return (await m).stats.sessions;
}

function perSession(label: string, from: Sample, to: Sample, n: number): Record<string, string | number> {
  const d = (k: keyof Sample) => kib(((to[k] as number) - (from[k] as number)) / n);
  // Native objects: malloc'd bytes in use that are neither ArrayBuffer stores nor V8's own.
  const native = (s: Sample) => s.mallocInUse - s.arrayBuffers - s.v8Malloced;
  return {
    per_session: label, rss: d('rss'), ...(TRIM ? { rss_trimmed: d('rssTrimmed') } : {}), heap_used: d('heapUsed'), heap_physical: d('heapPhysical'), new_space: d('newSpacePhysical'),
    array_buffers: d('arrayBuffers'), malloc_in_use: d('mallocInUse'), malloc_held: d('mallocSystem'), native_objects: kib((native(to) - native(from)) / n),
  };
}

const config = loadConfig(env);
const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix });
const serverFlags = (process.env.MEM_SERVER_FLAGS ?? '').split(' ').filter(Boolean);
// MEM_SERVER=floor: the bare uWS echo (server-floor.ts) instead, to see what the sockets alone keep.
const FLOOR = process.env.MEM_SERVER === 'floor';
const srv = child(FLOOR ? 'server-floor.ts' : 'server-ours.ts', ['--expose-gc', ...serverFlags, '--import', resolve(here, 'memory-probe.ts')], 'pipe');
srv.stderr!.on('data', (b: Buffer) => {
  serverStderr += b.toString();
  if (!/system bytes|in use bytes|Arena|mmap/.test(b.toString())) process.stderr.write(b);
});
const snapshots: string[] = [];
try {
  const bench = await benchProject(ctx, 'mem');
  const { port } = await nextMessage<{ port: number }>(srv, (m) => m?.type === 'ready');

  const admit = async (): Promise<string[]> => {
    if (FLOOR) return Array.from({ length: N }, (_, i) => `ws://127.0.0.1:${port}/stream?id=${i}`);
    const urls: string[] = [];
    for (let i = 0; i < N; i += 50) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(50, N - i) }, () => admitSession(ctx, bench.projectId, { agent_id: bench.agentId as string, sample_rate_in: 16000, sample_rate_out: 24000, variables: {}, encoding: 'pcm16' })),
      );
      for (const b of batch) urls.push(b.ws_url.replace(/:\d+\//, `:${port}/`));
    }
    return urls;
  };

  const idle: Sample[] = [await memory(srv)];
  const loaded: Sample[] = [];
  const settled: Sample[] = [];
  const clients: ClientStats[] = [];
  for (let c = 0; c < CYCLES; c++) {
    const last = c === CYCLES - 1;
    const urls = await admit();
    if (SNAPSHOT && last) snapshots.push((await memory(srv, join(tmpdir(), `session-memory-${process.pid}-idle.heapsnapshot`))).snapshot!);
    const client = child('load-client.ts', []);
    await nextMessage(client, (m) => m?.type === 'ready');
    const done = nextMessage<{ stats: ClientStats }>(client, (m) => m?.type === 'done');
    client.send({ cmd: 'start', urls, warmupMs: 1000, measureMs: Math.max(1000, SEND_MS - 1000) });
    clients.push((await done).stats);
    // The client stopped sending with `done`; calls stay connected until the hang-up.
    loaded.push(await memory(srv));
    await sleep(SETTLE_MS);
    settled.push(await memory(srv, SNAPSHOT && last ? join(tmpdir(), `session-memory-${process.pid}-loaded.heapsnapshot`) : undefined));
    if (SNAPSHOT && last) snapshots.push(settled[c].snapshot!);
    const hungUp = nextMessage(client, (m) => m?.type === 'hung-up');
    client.send({ cmd: 'hangup' });
    await hungUp;
    while ((await sessions(srv)) > 0) await sleep(100);
    client.send({ cmd: 'exit' });
    await new Promise((r) => client.once('exit', r));
    await sleep(500); // settlements of the ended calls (database writes) finish
    idle.push(await memory(srv));
  }

  console.log(`\nN = ${N} echo sessions (16 → 24 kHz), ${CYCLES} cycles, ${SEND_MS} ms of frames each; load average ${loadavg().map((v) => v.toFixed(2)).join(' ')}` +
    `${process.env.MALLOC_ARENA_MAX ? `, MALLOC_ARENA_MAX=${process.env.MALLOC_ARENA_MAX}` : ''}${SNAPSHOT ? ' (heap snapshots taken: RSS not comparable)' : ''}`);
  for (let c = 0; c < CYCLES; c++) {
    const conn = clients[c].connected;
    console.log(`cycle ${c + 1}: connected ${conn}, missing ${clients[c].missingFrames} of ${clients[c].dueFrames} due frames`);
    console.table([
      perSession(c === 0 ? 'cold (bench:media until now)' : 'warm (after an earlier cycle)', idle[c], loaded[c], conn),
      perSession(`same, ${SETTLE_MS} ms later`, idle[c], settled[c], conn),
      perSession('freed at hang-up (loaded − idle after)', idle[c + 1], settled[c], conn),
    ]);
  }
  console.table(idle.map((s, i) => ({ idle_sample: i === 0 ? 'before any session' : `after cycle ${i}`, rss_mib: mib(s.rss), heap_used_mib: mib(s.heapUsed), heap_physical_mib: mib(s.heapPhysical), malloc_in_use_mib: mib(s.mallocInUse), malloc_held_mib: mib(s.mallocSystem), new_space_mib: mib(s.newSpacePhysical), array_buffers_mib: mib(s.arrayBuffers) })));
  if (SNAPSHOT) {
    const rows = diffSummaries(summarizeHeapSnapshot(snapshots[0]), summarizeHeapSnapshot(snapshots[1])).slice(0, 25);
    const conn = clients[CYCLES - 1].connected;
    console.log(`heap snapshot difference per session (idle with admitted sessions → ${conn} connected), by kind, self sizes:`);
    console.table(rows.map((r) => ({ kind: r.kind, objects_per_session: Math.round((r.count / conn) * 100) / 100, bytes_per_session: Math.round(r.selfBytes / conn) })));
  }
} finally {
  srv.send({ cmd: 'exit' });
  await new Promise((r) => (srv.exitCode !== null ? r(null) : srv.once('exit', r)));
  const keys = await ctx.redis.keys(`${redisPrefix}*`);
  if (keys.length) await ctx.redis.del(...keys);
  await closeContext(ctx);
  await dropDatabase(config.DATABASE_URL).catch(() => {});
  rmSync(clientBin, { force: true });
  for (const f of snapshots) rmSync(f, { force: true });
}
