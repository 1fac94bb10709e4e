// npm run bench:webhooks — signed webhook deliveries per second to a local receiver (its own
// process) at worker concurrency 1, 4 and 16, and event → receipt latency at a steady rate.
// Every delivery goes the production path: outbox rows in Postgres, a BullMQ job per delivery
// in Redis, a Postgres claim, HMAC signing, an HTTP POST, a Postgres completion.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startHarness } from '../../test/helpers/harness.js';
import { createTenant } from '../../test/helpers/fixtures.js';
import { createEndpoint } from '../../src/db/repos/webhooks.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { randomBytes } from 'node:crypto';
import { emitCallEvent, kickDeliveries, startWebhookWorkers, type DueDelivery } from '../../src/webhooks/index.js';

const here = dirname(fileURLToPath(import.meta.url));
// "processes x concurrency": one worker in this process, or N worker processes (scale-out).
const RUNS = (process.env.BENCH_RUNS ?? '1x1,1x4,1x16,1x64,2x16,2x64').split(',').map((r) => {
  const [processes, concurrency] = r.split('x').map(Number);
  return { processes, concurrency };
});
const BURST = Number(process.env.BENCH_BURST ?? 6000);
const PACED_SECONDS = Number(process.env.BENCH_PACED_SECONDS ?? 3);

interface Stats {
  count: number;
  unique: number;
  bad: number;
  latencies: number[];
}

function request<T>(child: ChildProcess, cmd: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: { cmd: string }) => {
      if (m.cmd === cmd) {
        child.off('message', onMessage);
        resolve(m as T);
      }
    };
    child.on('message', onMessage);
    child.send({ cmd });
  });
}

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);

const h = await startHarness({ app: false, env: { LOG_LEVEL: 'silent' } });
const keyringSpec = `b1:${randomBytes(32).toString('base64')}`;
h.ctx.keyring = Keyring.parse(keyringSpec); // shared with worker processes
const tenant = await createTenant(h);
const endpoint0 = { url: '' };
const session = {
  id: '00000000-0000-4000-8000-000000000000',
  project_id: tenant.projectId,
  status: 'completed',
  direction: 'web',
  connected_seconds: 61,
  cost_nano_usd: '10000000',
};

// The receiver needs the secret before the endpoint exists: create the endpoint first with a
// placeholder URL, then point it at the receiver.
const created = await createEndpoint(h.ctx, tenant.projectId, { name: 'bench', url: 'http://127.0.0.1:1/', event_types: [] });
const receiver = fork(join(here, 'receiver.ts'), [], {
  execArgv: ['--import', 'tsx'],
  env: { ...process.env, BENCH_SECRET: created.signing_secret },
});
const { port } = await new Promise<{ port: number }>((resolve) => receiver.once('message', (m) => resolve(m as { port: number })));
endpoint0.url = `http://127.0.0.1:${port}/hook`;
await h.ctx.sql`update webhook_endpoints set url = ${endpoint0.url} where id = ${created.id}`;

async function emit(count: number, perTx = 250): Promise<DueDelivery[]> {
  const due: DueDelivery[] = [];
  for (let done = 0; done < count; done += perTx) {
    const n = Math.min(perTx, count - done);
    const batch = await h.ctx.sql.begin(async (tx) => {
      const out: DueDelivery[] = [];
      for (let i = 0; i < n; i++) {
        const e = await emitCallEvent(tx, h.ctx, { projectId: tenant.projectId, agentId: null, type: 'call.completed', session });
        out.push(...e.deliveries);
      }
      return out;
    });
    due.push(...batch);
  }
  return due;
}

async function waitForCount(target: number, timeoutMs: number): Promise<Stats> {
  const deadline = Date.now() + timeoutMs;
  // Poll the count only (cheap); the latencies travel once, at the end.
  for (;;) {
    const { count } = await request<{ count: number }>(receiver, 'count');
    if (count >= target || Date.now() > deadline) return request<Stats>(receiver, 'stats');
    await new Promise((r) => setTimeout(r, 20));
  }
}

interface Row {
  processes: number;
  concurrency: number;
  deliveries: number;
  seconds: number;
  deliveries_per_second: number;
  paced_rate_per_second: number;
  paced_deliveries: number;
  latency_p50_ms: number;
  latency_p99_ms: number;
  burst_latency_p50_ms: number;
  burst_latency_p99_ms: number;
  bad_signatures: number;
  duplicates: number;
  worker_cpu_ms_per_delivery: number;
  load_average_1m: number;
}
const rows: Row[] = [];

/** Worker processes (scale-out rows); their CPU is reported over IPC. */
async function startWorkerProcesses(n: number, concurrency: number) {
  const children = await Promise.all(
    Array.from({ length: n }, async () => {
      const child = fork(join(here, 'worker-process.ts'), [], {
        execArgv: ['--import', 'tsx'],
        env: {
          ...process.env,
          DATABASE_URL: h.ctx.config.DATABASE_URL,
          REDIS_URL: h.ctx.config.REDIS_URL,
          KEYRING: keyringSpec,
          ALLOW_PRIVATE_URLS: '1',
          LOG_LEVEL: 'silent',
          BENCH_REDIS_PREFIX: h.ctx.redisPrefix,
          BENCH_WORKER_CONCURRENCY: String(concurrency),
        },
      });
      await new Promise((resolve) => child.once('message', resolve));
      return child;
    }),
  );
  return {
    cpuReset: () => Promise.all(children.map((c) => request(c, 'cpu-reset'))),
    cpuMs: async () => (await Promise.all(children.map((c) => request<{ ms: number }>(c, 'cpu')))).reduce((a, b) => a + b.ms, 0),
    stop: async () => {
      await Promise.all(children.map((c) => new Promise((resolve) => (c.once('exit', resolve), c.send({ cmd: 'exit' })))));
    },
  };
}

for (const { processes, concurrency } of RUNS) {
  const burst = concurrency === 1 ? Math.min(BURST, 1500) : BURST;
  const inProcess = processes === 1;
  const batchWindowMs = process.env.BENCH_BATCH_WINDOW_MS === undefined ? undefined : Number(process.env.BENCH_BATCH_WINDOW_MS);
  const stopLocal = inProcess ? await startWebhookWorkers(h.ctx, { concurrency, sweeper: false, batchWindowMs }) : null;
  const remote = inProcess ? null : await startWorkerProcesses(processes, concurrency);

  // Warm-up (connections, JIT), not measured.
  await request(receiver, 'reset');
  await kickDeliveries(h.ctx, await emit(200));
  await waitForCount(200, 30_000);

  // Throughput: a backlog of `burst` recorded deliveries, queued at once.
  const due = await emit(burst);
  await request(receiver, 'reset');
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  await remote?.cpuReset();
  for (let i = 0; i < due.length; i += 1000) await kickDeliveries(h.ctx, due.slice(i, i + 1000), 30_000);
  const burstStats = await waitForCount(burst, 120_000);
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const workerCpuMs = remote ? await remote.cpuMs() : (cpu.user + cpu.system) / 1000;
  const cpuMsPerDelivery = workerCpuMs / Math.max(1, burstStats.count);
  const burstSorted = [...burstStats.latencies].sort((a, b) => a - b);

  // Latency: events at a steady rate well under capacity, each emitted and kicked on its own.
  const rate = Math.max(10, Math.min(500, Math.floor((burst / seconds) * 0.5)));
  const paced = rate * PACED_SECONDS;
  await request(receiver, 'reset');
  const start = performance.now();
  for (let i = 0; i < paced; i++) {
    const wait = start + (i * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const d = await h.ctx.sql.begin((tx) => emitCallEvent(tx, h.ctx, { projectId: tenant.projectId, agentId: null, type: 'call.completed', session }));
    void kickDeliveries(h.ctx, d);
  }
  const pacedStats = await waitForCount(paced, 60_000);
  const sorted = [...pacedStats.latencies].sort((a, b) => a - b);
  await stopLocal?.();
  await remote?.stop();

  rows.push({
    processes,
    concurrency,
    deliveries: burstStats.count,
    seconds: Number(seconds.toFixed(3)),
    deliveries_per_second: Math.round(burstStats.count / seconds),
    paced_rate_per_second: rate,
    paced_deliveries: pacedStats.count,
    latency_p50_ms: percentile(sorted, 50),
    latency_p99_ms: percentile(sorted, 99),
    burst_latency_p50_ms: percentile(burstSorted, 50),
    burst_latency_p99_ms: percentile(burstSorted, 99),
    bad_signatures: burstStats.bad + pacedStats.bad,
    duplicates: burstStats.count - burstStats.unique + (pacedStats.count - pacedStats.unique),
    worker_cpu_ms_per_delivery: Number(cpuMsPerDelivery.toFixed(3)),
    load_average_1m: Number(os.loadavg()[0].toFixed(2)),
  });
}

receiver.send({ cmd: 'exit' });
await h.close();

const best = Math.max(...rows.map((r) => r.deliveries_per_second));
const result = {
  bench: 'webhooks',
  at: new Date().toISOString(),
  machine: { cpus: os.cpus().length, cpu_model: os.cpus()[0]?.model ?? 'unknown', node: process.version },
  target_deliveries_per_second: 2000,
  met_target: best >= 2000,
  notes:
    'deliveries/s: a backlog of recorded deliveries queued at once, from the first enqueue to the last receipt. ' +
    'latency: event timestamp (outbox insert) to receipt at the receiver, at a steady rate of half the measured throughput (max 500/s). ' +
    'burst latency includes time spent waiting in the backlog. processes=1: the worker runs in the bench process; processes>1: separate worker processes (scale-out of the worker role). ' +
    'worker_cpu_ms_per_delivery: CPU of the worker process(es) during the burst, divided by deliveries; load_average_1m shows how busy the shared machine was. Receiver in its own process; Postgres and Redis on the same machine.',
  rows,
};
const out = join(here, '..', 'results', 'webhooks.json');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);

console.log(`webhook deliveries, ${result.machine.cpus} CPUs, ${result.machine.node}`);
console.log('processes x concurrency | deliveries |   per s | paced/s | p50 ms | p99 ms | bad sig | dupes | cpu ms/delivery | load');
for (const r of rows) {
  console.log(
    `${`${r.processes} x ${r.concurrency}`.padStart(21)} | ${String(r.deliveries).padStart(10)} | ${String(r.deliveries_per_second).padStart(7)} | ` +
      `${String(r.paced_rate_per_second).padStart(7)} | ${String(r.latency_p50_ms).padStart(6)} | ${String(r.latency_p99_ms).padStart(6)} | ` +
      `${String(r.bad_signatures).padStart(7)} | ${String(r.duplicates).padStart(5)} | ${String(r.worker_cpu_ms_per_delivery).padStart(15)} | ${r.load_average_1m}`,
  );
}
console.log(`best ${best}/s (target 2000/s: ${result.met_target ? 'met' : 'NOT met'}); results in bench/results/webhooks.json`);
process.exit(0);
