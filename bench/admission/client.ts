// The load client of bench:admission, in its own process: an undici keep-alive pool against the
// api. Two shapes of load, sent as `run` commands over IPC:
//   closed: `concurrency` requests in flight at all times, for `durationMs` (the most it takes);
//   open:   a request every 1/`rate` s on an absolute schedule, whatever the answers do; latency
//           counts from the scheduled time, so a stall queues requests and shows in the tail
//           (no coordinated omission).
// Each request is POST /v2/voice/sessions with the API key, or (`floor`) GET /healthz.
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';

export interface LoadPlan {
  shape: 'closed' | 'open';
  /** closed: requests in flight. */
  concurrency: number;
  /** open: requests per second. */
  rate: number;
  durationMs: number;
  /** admit: POST /v2/voice/sessions; idempotent: the same with a fresh Idempotency-Key each; floor: GET /healthz. */
  request: 'admit' | 'idempotent' | 'floor';
  /** Which project's key and agent (the run's tenants). */
  apiKey: string;
  agentId: string;
}

export interface LoadResult {
  sent: number;
  /** Answers by HTTP status ('error' for a transport failure). */
  statuses: Record<string, number>;
  /** Session ids of the 201s. */
  admitted: string[];
  latencyP50Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  wallMs: number;
  /** This process's CPU over the run. */
  cpuMs: number;
  /** open: the largest lag of a send behind its schedule (the client's own stalls). */
  sendLagMaxMs: number;
}

const origin = process.env.BENCH_API_ORIGIN!;
const pool = new Pool(origin, { connections: Number(process.env.BENCH_CONNECTIONS ?? 64), pipelining: 1, keepAliveTimeout: 60_000 });

async function one(plan: LoadPlan, r: LoadResult, latencies: number[], from: number): Promise<void> {
  r.sent++;
  try {
    const res =
      plan.request === 'floor'
        ? await pool.request({ method: 'GET', path: '/healthz' })
        : await pool.request({
            method: 'POST',
            path: '/v2/voice/sessions',
            headers: {
              'content-type': 'application/json',
              'x-api-key': plan.apiKey,
              ...(plan.request === 'idempotent' ? { 'idempotency-key': randomUUID() } : {}),
            },
            body: JSON.stringify({ agent_id: plan.agentId }),
          });
    const text = await res.body.text();
    latencies.push(performance.now() - from);
    r.statuses[res.statusCode] = (r.statuses[res.statusCode] ?? 0) + 1;
    if (res.statusCode === 201) r.admitted.push((JSON.parse(text) as { session: { id: string } }).session.id);
  } catch {
    latencies.push(performance.now() - from);
    r.statuses.error = (r.statuses.error ?? 0) + 1;
  }
}

async function run(plan: LoadPlan): Promise<LoadResult> {
  const r: LoadResult = { sent: 0, statuses: {}, admitted: [], latencyP50Ms: 0, latencyP99Ms: 0, latencyMaxMs: 0, wallMs: 0, cpuMs: 0, sendLagMaxMs: 0 };
  const latencies: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const end = t0 + plan.durationMs;
  if (plan.shape === 'closed') {
    const loop = async () => {
      while (performance.now() < end) {
        await one(plan, r, latencies, performance.now());
      }
    };
    await Promise.all(Array.from({ length: plan.concurrency }, loop));
  } else {
    const inflight: Promise<void>[] = [];
    const interval = 1000 / plan.rate;
    for (let i = 0; ; i++) {
      const due = t0 + i * interval;
      if (due >= end) break;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((res) => setTimeout(res, wait));
      r.sendLagMaxMs = Math.max(r.sendLagMaxMs, performance.now() - due);
      inflight.push(one(plan, r, latencies, due));
    }
    await Promise.all(inflight);
  }
  r.wallMs = performance.now() - t0;
  const c = process.cpuUsage(cpu0);
  r.cpuMs = (c.user + c.system) / 1000;
  latencies.sort((a, b) => a - b);
  const q = (p: number) => Math.round((latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? NaN) * 10) / 10;
  r.latencyP50Ms = q(0.5);
  r.latencyP99Ms = q(0.99);
  r.latencyMaxMs = q(1);
  r.sendLagMaxMs = Math.round(r.sendLagMaxMs * 10) / 10;
  return r;
}

process.on('message', (m: { cmd: 'run'; plan: LoadPlan } | { cmd: 'exit' }) => {
  if (m.cmd === 'run') void run(m.plan).then((result) => process.send!({ type: 'done', result }));
  else void pool.close().then(() => process.exit(0));
});
process.send!({ type: 'ready' });
