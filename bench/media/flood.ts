// npx tsx bench/media/flood.ts — what one flooding client does to another call on the same
// media node (issue "Faults and abuse", deliverable 7: the per-socket message rate limit).
//
// Three processes: our media node (echo pipeline) in a child; a flooding client in another
// child (raw TCP, a hand-written upgrade, pre-masked `{"type":"dance"}` text frames written as
// fast as the socket takes them: every one costs the server a JSON parse and an `error` frame);
// and, here, one normal call (16 kHz in, 24 kHz out, a 20 ms frame every 20 ms on an absolute
// schedule) whose output gaps (the time between consecutive output frames arriving, 20 ms
// ideally) are measured over the window. Phases, each with a fresh normal call, a warm-up with
// it alone, then the window:
//
//   node with the default limit (MEDIA_MAX_MESSAGES_PER_SECOND 200, MEDIA_MESSAGE_BURST 400):
//     quiet      — the normal call alone
//     flood      — one flooding socket, as fast as it can (it is cut at the limit)
//     reconnect  — the flooder reconnects with a fresh session after every cut, at most 10 times
//                  a second (what the default api_rpm of 600 lets a project admit)
//     under      — one socket sending 190 bad text frames a second, just under the limit, all window
//   node without a limit in effect (1,000,000/s, burst 10,000,000), the issue's situation:
//     quiet, flood, flood92k (92,000 frames a second, the rate the issue saw)
//
// Printed: per phase the normal call's output gaps (p50 / p99 / max ms, where the longest one
// fell, the longest among the gaps that overlap a flooding socket's life or the 100 ms after it
// and the longest of the others, frames received against due), the flooder's sockets (when,
// how long open, frames the server answered, close codes) and the server's CPU; then each flood
// phase against the quiet phase before it. Not a test: figures for docs/media.md. Run under
// `flock /tmp/bench.lock`. FLOOD_WARMUP_MS (2000), FLOOD_MEASURE_MS (10000), FLOOD_PHASES
// (default: all, in the order of ALL_PHASES; a list such as `limit:quiet,limit:flood,limit:quiet,limit:flood`
// runs those, repeats included).
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect as tcpConnect, type Socket } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { dropDatabase } from '../../src/shared/sql.js';
import { admitSession } from '../../src/sessions/admission.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { startMediaNode } from '../../src/roles/media.js';
import { benchProject } from '../shared/bench-project.js';

const self = fileURLToPath(import.meta.url);
const role = process.argv[2] ?? 'main';
const nextMessage = <T>(proc: NodeJS.EventEmitter, pick: (m: any) => boolean) =>
  new Promise<T>((resolve) => {
    const on = (m: unknown) => {
      if (pick(m)) {
        proc.off('message', on);
        resolve(m as T);
      }
    };
    proc.on('message', on);
  });

// ---------------------------------------------------------------------------------------------
// The media node under test (child).
async function server(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', MEDIA_PIPELINE: 'echo' });
  const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix: process.env.BENCH_REDIS_PREFIX! });
  const node = await startMediaNode(ctx, { port: 0, host: '127.0.0.1' });
  process.on('message', (m: { cmd: string }) => {
    if (m.cmd === 'cpu') {
      const u = process.cpuUsage();
      process.send!({ type: 'cpu', ms: (u.user + u.system) / 1000 });
    } else if (m.cmd === 'exit') {
      void node.drain(0).then(async () => {
        await ctx.sql.end({ timeout: 2 });
        ctx.redis.disconnect();
        process.exit(0);
      });
    }
  });
  process.send!({ type: 'ready', port: node.port });
}

// ---------------------------------------------------------------------------------------------
// The flooding client (child): raw TCP, as fast as the socket takes it.
const FLOOD_FRAME = (() => {
  const payload = Buffer.from('{"type":"dance"}');
  const mask = [0x12, 0x34, 0x56, 0x78];
  for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i & 3];
  return Buffer.concat([Buffer.from([0x81, 0x80 | payload.length, ...mask]), payload]);
})();
const CHUNK_FRAMES = 1000;
const FLOOD_CHUNK = Buffer.concat(Array.from({ length: CHUNK_FRAMES }, () => FLOOD_FRAME));

interface FloodPlan {
  urls: string[];
  /** `fast`: as fast as TCP allows; `paced`: `perSecond` frames a second. */
  pace: 'fast' | 'paced';
  perSecond: number;
  /** After a cut, connect the next url (at most `reconnectsPerSecond`). */
  reconnect: boolean;
  reconnectsPerSecond: number;
  durationMs: number;
}

interface FloodResult {
  connections: number;
  /** Frames handed to the kernel (a flood cut by the server had many of them unread). */
  written: number;
  /** Text frames the server sent back: one `error` per flood frame it processed. */
  answered: number;
  /** Close codes the server sent, by socket ('none': still open at the end). */
  cuts: Record<string, number>;
  /** Time the flooding sockets were open, summed. */
  connectedMs: number;
  /** Per socket: [upgrade, close] in epoch ms (performance.timeOrigin + now: comparable across processes). */
  lifetimes: [number, number][];
}

function flooder(): void {
  process.on('message', (m: { cmd: string; plan?: FloodPlan }) => {
    if (m.cmd === 'flood') void flood(m.plan!).then((r) => process.send!({ type: 'flooded', result: r }));
    if (m.cmd === 'exit') process.exit(0);
  });
  process.send!({ type: 'ready' });
}

async function flood(plan: FloodPlan): Promise<FloodResult> {
  const t0 = performance.now();
  const end = t0 + plan.durationMs;
  const r: FloodResult = { connections: 0, written: 0, answered: 0, cuts: {}, connectedMs: 0, lifetimes: [] };
  let next = 0;
  let lastConnect = -Infinity;
  while (performance.now() < end && next < plan.urls.length) {
    const wait = lastConnect + 1000 / plan.reconnectsPerSecond - performance.now();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    lastConnect = performance.now();
    r.connections++;
    const code = await floodOne(plan.urls[next++], plan, end, r);
    r.cuts[code] = (r.cuts[code] ?? 0) + 1;
    if (!plan.reconnect) break;
  }
  return r;
}

/** One socket: upgrade, then flood until the server closes it or `end`; resolves with the close code seen ('none' at the end). */
function floodOne(url: string, plan: FloodPlan, end: number, r: FloodResult): Promise<string> {
  const u = new URL(url);
  return new Promise((resolve) => {
    const sock: Socket = tcpConnect({ host: u.hostname, port: Number(u.port), noDelay: true });
    let upgraded = false;
    let done = false;
    let pending: Buffer = Buffer.alloc(0);
    let closeCode = 'none';
    let paceTimer: NodeJS.Timeout | null = null;
    let upgradedAt = 0;
    const endTimer = setTimeout(() => finish(), Math.max(0, end - performance.now()));
    const finish = () => {
      if (done) return;
      done = true;
      if (upgraded) {
        const ms = Math.min(performance.now(), end) - upgradedAt;
        r.connectedMs += ms;
        r.lifetimes.push([performance.timeOrigin + upgradedAt, performance.timeOrigin + upgradedAt + ms]);
      }
      clearTimeout(endTimer);
      if (paceTimer) clearInterval(paceTimer);
      sock.destroy();
      resolve(closeCode);
    };
    const pump = () => {
      while (!done && upgraded && sock.write(FLOOD_CHUNK)) r.written += CHUNK_FRAMES;
      if (!done && upgraded) r.written += CHUNK_FRAMES; // the last write was queued too
    };
    const startPaced = () => {
      const start = performance.now();
      let sent = 0;
      paceTimer = setInterval(() => {
        const due = Math.floor(((performance.now() - start) * plan.perSecond) / 1000);
        while (sent < due && !done) {
          const k = Math.min(CHUNK_FRAMES, due - sent);
          sock.write(FLOOD_CHUNK.subarray(0, k * FLOOD_FRAME.length));
          sent += k;
          r.written += k;
        }
      }, 5);
    };
    sock.on('connect', () => {
      sock.write(
        `GET ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    sock.on('drain', () => {
      if (plan.pace === 'fast') pump();
    });
    sock.on('data', (chunk: Buffer) => {
      let buf: Buffer = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      let off = 0;
      if (!upgraded) {
        const at = buf.indexOf('\r\n\r\n');
        if (at < 0) {
          pending = buf;
          return;
        }
        if (!buf.subarray(0, 12).toString().includes('101')) return finish();
        upgraded = true;
        upgradedAt = performance.now();
        off = at + 4;
        if (plan.pace === 'fast') setImmediate(pump);
        else startPaced();
      }
      // Server frames (unmasked): count text frames, read the close code.
      for (;;) {
        if (buf.length - off < 2) break;
        const op = buf[off] & 0x0f;
        let len = buf[off + 1] & 0x7f;
        let head = 2;
        if (len === 126) {
          if (buf.length - off < 4) break;
          len = buf.readUInt16BE(off + 2);
          head = 4;
        } else if (len === 127) {
          if (buf.length - off < 10) break;
          len = Number(buf.readBigUInt64BE(off + 2));
          head = 10;
        }
        if (buf.length - off < head + len) break;
        if (op === 1) r.answered++;
        if (op === 8) closeCode = len >= 2 ? String(buf.readUInt16BE(off + head)) : 'no code';
        off += head + len;
      }
      buf = buf.subarray(off);
      pending = buf.length ? Buffer.from(buf) : Buffer.alloc(0);
    });
    sock.on('error', () => finish());
    sock.on('close', () => finish());
  });
}

// ---------------------------------------------------------------------------------------------
// The orchestrator and the normal call (here).
const WARMUP_MS = Number(process.env.FLOOD_WARMUP_MS ?? 2000);
const MEASURE_MS = Number(process.env.FLOOD_MEASURE_MS ?? 10000);
const FRAME_MS = 20;
const NORMAL_FRAME = (() => {
  const n = 320;
  const b = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) b.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 300 * i) / 16000)), i * 2);
  return b;
})();

/** Epoch ms (performance.timeOrigin + now), comparable with the flooder's. */
const epochNow = () => performance.timeOrigin + performance.now();
/** A gap ending this close after a flooding socket closed still counts as "during the flood". */
const FLOOD_TAIL_MS = 100;

interface Gaps {
  due: number;
  received: number;
  p50: number;
  p99: number;
  max: number;
  /** When the longest gap ended, ms into the window. */
  maxAtMs: number;
  over40: number;
  /** The longest gap overlapping a flooding socket's life (+ FLOOD_TAIL_MS), and how many gaps did. */
  maxDuringFlood: number;
  gapsDuringFlood: number;
  /** The longest gap the rest of the window. */
  maxElsewhere: number;
}

/** A normal call for warm-up + window: arrival times (epoch ms) of its output frames in the window. */
async function normalCall(url: string, onWindow: () => void): Promise<{ arrivals: number[]; from: number; to: number }> {
  const ws = new WebSocket(url);
  const arrivals: number[] = [];
  ws.on('message', (_d, isBinary) => {
    if (isBinary) arrivals.push(epochNow());
  });
  const closed = new Promise<void>((res) => ws.once('close', () => res()));
  await new Promise<void>((res, rej) => {
    ws.once('open', () => res());
    ws.once('error', rej);
  });
  const t0 = epochNow();
  const windowFrom = t0 + WARMUP_MS;
  const windowTo = windowFrom + MEASURE_MS;
  let windowStarted = false;
  for (let i = 0; ; i++) {
    const due = t0 + i * FRAME_MS;
    if (due > windowTo) break;
    const wait = due - epochNow();
    if (wait > 0) await new Promise((res) => setTimeout(res, wait));
    if (!windowStarted && epochNow() >= windowFrom) {
      windowStarted = true;
      onWindow();
    }
    if (ws.readyState !== WebSocket.OPEN) break;
    ws.send(NORMAL_FRAME);
  }
  await new Promise((res) => setTimeout(res, 200));
  ws.send('{"type":"stop"}');
  await closed;
  return { arrivals: arrivals.filter((a) => a >= windowFrom && a <= windowTo), from: windowFrom, to: windowTo };
}

function gapStats(call: { arrivals: number[]; from: number }, flooding: [number, number][]): Gaps {
  const { arrivals } = call;
  const gaps: number[] = [];
  let maxAtMs = NaN;
  let longest = -1;
  let maxDuringFlood = NaN;
  let gapsDuringFlood = 0;
  let maxElsewhere = 0;
  for (let i = 1; i < arrivals.length; i++) {
    const a = arrivals[i - 1];
    const b = arrivals[i];
    const g = b - a;
    if (g > longest) {
      longest = g;
      maxAtMs = b - call.from;
    }
    if (flooding.some(([s, e]) => a < e + FLOOD_TAIL_MS && b > s)) {
      gapsDuringFlood++;
      if (!(g <= maxDuringFlood)) maxDuringFlood = g;
    } else if (g > maxElsewhere) maxElsewhere = g;
    gaps.push(g);
  }
  gaps.sort((x, y) => x - y);
  const q = (p: number) => (gaps.length ? gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))] : NaN);
  return {
    due: MEASURE_MS / FRAME_MS,
    received: arrivals.length,
    p50: q(0.5),
    p99: q(0.99),
    max: gaps.at(-1) ?? NaN,
    maxAtMs,
    over40: gaps.filter((g) => g > 40).length,
    maxDuringFlood,
    gapsDuringFlood,
    maxElsewhere,
  };
}

interface Phase {
  server: 'limit' | 'nolimit';
  name: 'quiet' | 'flood' | 'flood92k' | 'reconnect' | 'under';
}

const ALL_PHASES = ['nolimit:quiet', 'nolimit:flood', 'nolimit:flood92k', 'limit:quiet', 'limit:flood', 'limit:reconnect', 'limit:under'];

async function main(): Promise<void> {
  const phases = (process.env.FLOOD_PHASES?.split(',') ?? ALL_PHASES).map((p): Phase => {
    if (!ALL_PHASES.includes(p)) throw new Error(`FLOOD_PHASES: unknown phase ${p} (known: ${ALL_PHASES.join(', ')})`);
    const [server, name] = p.split(':');
    return { server, name } as Phase;
  });
  const PG_BASE = process.env.TEST_DATABASE_BASE ?? 'postgres://postgres@127.0.0.1:5432';
  const redisPrefix = `vc:bench-flood:${process.pid}:`;
  const env = { ...process.env, DATABASE_URL: `${PG_BASE}/voice_bench_flood_${process.pid}`, BENCH_REDIS_PREFIX: redisPrefix, LOG_LEVEL: 'silent' };
  const config = loadConfig(env);
  const ctx = await createContext(config, { log: createLogger('silent'), keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]), redisPrefix });
  const child = (r: string, extra: Record<string, string> = {}) =>
    fork(self, [r], { execArgv: ['--import', 'tsx'], env: { ...env, ...extra }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const rows: string[] = [];
  const deltas: string[] = [];
  const lastQuiet: Record<string, Gaps> = {};
  const loadAtStart = loadavg().map((v) => v.toFixed(2)).join(' ');
  try {
    const bench = await benchProject(ctx, 'flood');
    const admit = async (port: number) => {
      const a = await admitSession(ctx, bench.projectId, { agent_id: bench.agentId, sample_rate_in: 16000, sample_rate_out: 24000, variables: {}, encoding: 'pcm16' });
      return a.ws_url.replace(/:\d+\//, `:${port}/`);
    };

    const flooderProc = child('flooder');
    await nextMessage(flooderProc, (m) => m?.type === 'ready');
    const limits = { limit: {}, nolimit: { MEDIA_MAX_MESSAGES_PER_SECOND: '1000000', MEDIA_MESSAGE_BURST: '10000000' } };
    let srv: ChildProcess | null = null;
    let srvKind = '';
    let port = 0;
    const cpu = async () => {
      const m = nextMessage<{ ms: number }>(srv!, (x) => x?.type === 'cpu');
      srv!.send({ cmd: 'cpu' });
      return (await m).ms;
    };
    for (const phase of phases) {
      if (srvKind !== phase.server) {
        if (srv) {
          srv.send({ cmd: 'exit' });
          await new Promise((r) => srv!.once('exit', r));
        }
        srv = child('server', limits[phase.server]);
        srvKind = phase.server;
        port = (await nextMessage<{ port: number }>(srv, (m) => m?.type === 'ready')).port;
      }
      const normalUrl = await admit(port);
      const pool = phase.name === 'quiet' ? [] : await Promise.all(Array.from({ length: phase.name === 'reconnect' ? Math.ceil(MEASURE_MS / 100) + 5 : 1 }, () => admit(port)));
      const plan: FloodPlan = {
        urls: pool,
        pace: phase.name === 'under' || phase.name === 'flood92k' ? 'paced' : 'fast',
        perSecond: phase.name === 'flood92k' ? 92_000 : 190,
        reconnect: phase.name === 'reconnect',
        reconnectsPerSecond: 10,
        durationMs: MEASURE_MS,
      };
      let cpu0 = 0;
      let flooded: Promise<{ result: FloodResult }> | null = null;
      let w0 = 0;
      const normal = await normalCall(normalUrl, () => {
        w0 = performance.now();
        void cpu().then((ms) => (cpu0 = ms));
        if (phase.name !== 'quiet') {
          flooded = nextMessage(flooderProc, (m) => m?.type === 'flooded');
          flooderProc.send({ cmd: 'flood', plan });
        }
      });
      const windowS = (performance.now() - w0) / 1000;
      const serverCpu = ((await cpu()) - cpu0) / 10 / windowS;
      const f = flooded ? (await (flooded as Promise<{ result: FloodResult }>)).result : null;
      const gaps = gapStats(normal, f?.lifetimes ?? []);
      const perS = (n: number) => Math.round(n / (f!.connectedMs / 1000));
      const life = f ? f.lifetimes.map(([a, b]) => Math.round((b - a) * 10) / 10).sort((a, b) => a - b) : [];
      const firstAt = f?.lifetimes[0] ? `first upgraded at +${(f.lifetimes[0][0] - normal.from).toFixed(0)} ms, ` : '';
      const fr = f
        ? `${firstAt}${f.connections} socket(s) open ${life.length > 3 ? `${life[0]}–${life.at(-1)} ms (median ${life[life.length >> 1]})` : life.join(', ') + ' ms'}, ` +
          `${f.answered} frames answered (${perS(f.answered)}/s while open; ${f.written} written), closes ${JSON.stringify(f.cuts)}`
        : '-';
      const during = f ? `; max gap during the flood (${gaps.gapsDuringFlood} gaps) ${gaps.maxDuringFlood.toFixed(1)} ms, elsewhere ${gaps.maxElsewhere.toFixed(1)} ms` : '';
      const row =
        `${phase.server.padEnd(8)} ${phase.name.padEnd(10)} gaps p50/p99/max ${gaps.p50.toFixed(1)} / ${gaps.p99.toFixed(1)} / ${gaps.max.toFixed(1)} ms ` +
        `(max at +${gaps.maxAtMs.toFixed(0)} ms${during}), >40 ms ${gaps.over40}, frames ${gaps.received}/${gaps.due}, server CPU ${serverCpu.toFixed(0)} %; flooder: ${fr}`;
      rows.push(row);
      console.log(row);
      const quiet = lastQuiet[phase.server];
      if (phase.name === 'quiet') lastQuiet[phase.server] = gaps;
      else if (quiet) {
        const d = (x: number) => `${x >= 0 ? '+' : ''}${x.toFixed(1)}`;
        deltas.push(
          `${phase.server}:${phase.name} against the ${phase.server}:quiet before it: p99 ${d(gaps.p99 - quiet.p99)} ms, max ${d(gaps.max - quiet.max)} ms ` +
            `(max of the gaps during the flood ${d(gaps.maxDuringFlood - quiet.max)} ms)`,
        );
      }
    }
    srv?.send({ cmd: 'exit' });
    if (srv) await new Promise((r) => srv!.once('exit', r));
    flooderProc.send({ cmd: 'exit' });
  } finally {
    const keys = await ctx.redis.keys(`${redisPrefix}*`);
    if (keys.length) await ctx.redis.del(...keys);
    await closeContext(ctx);
    await dropDatabase(config.DATABASE_URL).catch(() => {});
  }
  console.log(`\n${new Date().toISOString()}, ${cpus().length} × ${cpus()[0]?.model ?? ''}, load average ${loadAtStart} at the start, ${loadavg().map((v) => v.toFixed(2)).join(' ')} at the end`);
  console.log(`warm-up ${WARMUP_MS} ms, window ${MEASURE_MS} ms; limit = defaults (200/s, burst 400); nolimit = 1,000,000/s, burst 10,000,000`);
  for (const r of rows) console.log(r);
  console.log('');
  for (const d of deltas) console.log(d);
}

if (role === 'server') await server();
else if (role === 'flooder') flooder();
else await main();
