import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import t from 'tap';
import { startHarness, type Harness, type HarnessOptions } from '../helpers/harness.js';
import { createTenant, type Tenant } from '../helpers/fixtures.js';
import { setProjectLimits } from '../../src/db/repos/projects.js';
import { createAgent, fund, MINUTE_NANO, type AgentFixture } from '../sessions/fixtures.js';
import { admit, connect, mediaUrl, sine, sleep, until, type MediaClient } from '../media/client.js';

export { sleep, until };

/** A role of the service in its own process (`fixtures/role-process.ts`). */
export interface RoleProcess {
  child: ChildProcess;
  /** The media port (media role). */
  port: number;
  /** Its log so far, one object per line. */
  logs: Record<string, unknown>[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export async function startRole(h: Harness, role: 'media' | 'worker' | 'api', env: Record<string, string> = {}): Promise<RoleProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./fixtures/role-process.ts', import.meta.url).pathname], {
    env: {
      ...process.env,
      FAULT_ROLE: role,
      DATABASE_URL: h.ctx.config.DATABASE_URL,
      REDIS_URL: h.ctx.config.REDIS_URL,
      TEST_REDIS_PREFIX: h.ctx.redisPrefix,
      PORT: '0',
      WORKER_HTTP_PORT: '0',
      ALLOW_PRIVATE_URLS: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Record<string, unknown>[] = [];
  createInterface({ input: child.stderr! }).on('line', (line) => {
    try {
      logs.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      logs.push({ msg: line });
    }
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const first = await Promise.race([lines.next(), exited.then(() => null)]);
  if (!first || first.done) throw new Error(`${role} process exited before it was ready: ${JSON.stringify(logs.slice(-5))}`);
  const ready = JSON.parse(first.value as string) as { port?: number };
  return { child, port: ready.port ?? 0, logs, exited };
}

/** Kills a role process (SIGKILL unless told otherwise) and waits for it to exit. */
export async function killRole(p: RoleProcess, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  await p.exited;
}

/** A server the test takes away (its own Redis or Postgres): brought back before the harness closes. */
export interface Breakable {
  start(): Promise<void>;
  /** SIGCONT, for a server the test may have paused. */
  resume?(): void;
  close(): Promise<void>;
}

/**
 * The harness of a fault test (on `server` when given) and the role processes it starts: the
 * file's teardown kills the roles, brings the server back and closes the harness, then the server.
 */
export async function startFaultHarness(server: Breakable | null, opts: HarnessOptions = {}): Promise<{ h: Harness; roles: RoleProcess[] }> {
  const h = await startHarness(opts);
  const roles: RoleProcess[] = [];
  t.teardown(async () => {
    try {
      for (const r of roles) await killRole(r);
      server?.resume?.();
      await server?.start();
      await h.close();
    } finally {
      await server?.close();
    }
  });
  return { h, roles };
}

/** A tenant with one agent, `minutes` of credit and, when given, a concurrency limit. */
export async function fundedAgent(
  h: Harness,
  opts: { minutes: number; maxConcurrentSessions?: number; agent?: Parameters<typeof createAgent>[2] },
): Promise<{ tenant: Tenant; agent: AgentFixture }> {
  const tenant = await createTenant(h);
  if (opts.maxConcurrentSessions !== undefined) await setProjectLimits(h.ctx, tenant.projectId, { max_concurrent_sessions: opts.maxConcurrentSessions });
  const agent = await createAgent(h, tenant.projectId, opts.agent);
  await fund(h, tenant.projectId, BigInt(opts.minutes) * MINUTE_NANO);
  return { tenant, agent };
}

export interface LiveCall {
  id: string;
  client: MediaClient;
  /** performance.now() when the socket opened. */
  openedAt: number;
}

/** Admits `n` sessions through the API and connects each to the media node. */
export async function admitAndConnect(h: Harness, tenant: Tenant, agentId: string, mediaPort: number, n: number): Promise<LiveCall[]> {
  const calls: LiveCall[] = [];
  for (let i = 0; i < n; i++) {
    const s = await admit(h, tenant.machine, { agent_id: agentId });
    const client = connect(mediaUrl(s.ws_url, mediaPort));
    await client.opened;
    calls.push({ id: s.session.id, client, openedAt: performance.now() });
  }
  return calls;
}

/** Every 20 ms, one 20 ms frame of caller audio on every open call; returns the stop function. */
export function streamAudio(calls: LiveCall[]): () => void {
  const frame = sine(16000, 20);
  const timer = setInterval(() => {
    for (const c of calls) if (c.client.ws.readyState === c.client.ws.OPEN) c.client.ws.send(frame);
  }, 20);
  return () => clearInterval(timer);
}

/** Audio frames the call received since `sinceMs` (performance.now()). */
export function framesSince(call: LiveCall, sinceMs: number): number {
  let n = 0;
  for (let i = call.client.binary.length - 1; i >= 0 && call.client.binary[i].at >= sinceMs; i--) n++;
  return n;
}

/** How long `work` took, in ms, with its result. */
export async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export async function sessionRow(h: Harness, id: string): Promise<Record<string, unknown>> {
  const [row] = await h.ctx.sql`select * from voice_sessions where id = ${id}`;
  return row as Record<string, unknown>;
}

/** Ledger rows per kind for one session, e.g. `{hold: 1, release: 1, charge: 1}`. */
export async function ledgerKinds(h: Harness, id: string): Promise<Record<string, number>> {
  const rows = await h.ctx.sql<{ kind: string; n: number }[]>`select kind, count(*)::int as n from wallet_ledger where session_id = ${id} group by kind`;
  return Object.fromEntries(rows.map((r) => [r.kind, r.n]));
}
