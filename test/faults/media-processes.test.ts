import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import t from 'tap';
import { freePort, startOwnRedis } from '../helpers/own-redis.js';
import { startHarness } from '../helpers/harness.js';
import { listMediaNodes } from '../../src/sessions/media-nodes.js';
import { connect, sleep, until } from '../media/client.js';
import { fundedAgent } from './support.js';

// Issue 21 deliverable 2: MEDIA_PROCESSES=2 makes the service (src/main.ts, as `npm start` runs
// it) run two supervised media processes on consecutive ports, each registered with its own
// public URL; admission spreads calls over them; a child killed with -9 is started again (a new
// node on the same port) and SIGTERM of the service stops them all.

const root = new URL('../..', import.meta.url).pathname;
// Its own Redis: the service uses the default key prefix, which no other test may see.
const redis = await startOwnRedis();
t.teardown(() => redis.close());
const h = await startHarness({ redisUrl: redis.url });
t.teardown(h.close);
const service = { ...h.ctx, redisPrefix: 'vc:' }; // the service's view of the registry

async function consecutivePorts(): Promise<number> {
  for (;;) {
    const p = await freePort();
    if (p < 65000 && (await freePort()) !== p + 1) return p; // p+1 was not just handed out; good enough for a test
  }
}

const port = await freePort();
const mediaPort = await consecutivePorts();
const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/main.ts')], {
  cwd: root,
  env: {
    ...process.env,
    ENV_FILE: '/dev/null',
    ROLES: 'api,media',
    MEDIA_PROCESSES: '2',
    PORT: String(port),
    MEDIA_PORT: String(mediaPort),
    METRICS_PORT: '0',
    DATABASE_URL: h.ctx.config.DATABASE_URL,
    REDIS_URL: redis.url,
    DATA_DIR: mkdtempSync(join(tmpdir(), 'media-processes-')),
    KEYRING: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    MEDIA_PIPELINE: 'echo',
    LOG_LEVEL: 'info',
    DRAIN_GRACE_MS: '1000',
  },
  stdio: ['ignore', 'pipe', 'inherit'],
});
const logs: Record<string, unknown>[] = [];
createInterface({ input: child.stdout! }).on('line', (line) => {
  try {
    logs.push(JSON.parse(line) as Record<string, unknown>);
  } catch {
    logs.push({ msg: line });
  }
});
const exited = new Promise<{ code: number | null }>((resolve) => child.once('exit', (code) => resolve({ code })));
t.teardown(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
});

const liveNodes = async () => (await listMediaNodes(service)).filter((n) => n.expires_ms > Date.now() && !n.draining);

t.test('two supervised media processes, each registered with its own URL', async (t) => {
  await until(async () => (await liveNodes()).length === 2, 60_000);
  const urls = (await liveNodes()).map((n) => n.url).sort();
  t.same(urls, [`ws://127.0.0.1:${mediaPort}`, `ws://127.0.0.1:${mediaPort + 1}`], 'MEDIA_PORT and MEDIA_PORT+1');

  const { tenant, agent } = await fundedAgent(h, { minutes: 100, maxConcurrentSessions: 20 });
  const admit = async () => {
    const res = await fetch(`http://127.0.0.1:${port}/v2/voice/sessions`, { method: 'POST', headers: { ...tenant.machine, 'content-type': 'application/json' }, body: JSON.stringify({ agent_id: agent.agentId }) });
    t.equal(res.status, 201);
    return (await res.json()) as { session: { id: string }; ws_url: string };
  };
  const sessions = [await admit(), await admit(), await admit(), await admit()];
  const ports = sessions.map((s) => Number(new URL(s.ws_url).port));
  t.equal(ports.filter((p) => p === mediaPort).length, 2, 'two calls on each process');

  // A call on the first process; then kill -9 of that process.
  const s = sessions[ports.indexOf(mediaPort)];
  const call = connect(s.ws_url);
  await call.opened;
  const started = logs.filter((l) => l.msg === 'media process started' && l.index === 0);
  const victim = Number(started.at(-1)!.pid);
  const before = (await liveNodes()).find((n) => n.url.endsWith(`:${mediaPort}`))!;
  process.kill(victim, 'SIGKILL');
  const closed = await call.closed;
  t.not(closed.code, 1000, `the call's socket dropped (${closed.code})`);
  await until(() => logs.some((l) => l.msg === 'media process died; its calls are settled by the sweeper; restarting' && l.index === 0), 10_000);
  // The supervisor takes the dead process out of the registry at once, not when its last beat
  // runs out (NODE_TTL_MS): only the supervisor writes an entry as draining without a drain.
  await until(() => logs.some((l) => l.msg === 'dead media process taken out of the registry' && l.node_id === before.id), 10_000);
  const dead = (await listMediaNodes(service)).find((n) => n.id === before.id)!;
  t.ok(dead.draining && dead.expires_ms <= Date.now(), 'the dead process is never picked again');
  t.ok((await liveNodes()).every((n) => n.id !== before.id));
  // Started again on the same port, as a new node.
  await until(async () => (await liveNodes()).some((n) => n.url.endsWith(`:${mediaPort}`) && n.id !== before.id), 30_000);
  t.ok(logs.filter((l) => l.msg === 'media process started' && l.index === 0).length >= 2, 'restarted');
  // The dead node's entry expires NODE_TTL_MS after its last beat: from then on it is never picked.
  await until(async () => !(await liveNodes()).some((n) => n.id === before.id), 10_000);
  t.equal((await liveNodes()).length, 2, 'two live nodes again');
  // The other process still has its two admitted calls pending; the new one is empty: least-loaded wins.
  const after = [await admit(), await admit()].map((x) => Number(new URL(x.ws_url).port));
  t.same(after, [mediaPort, mediaPort], 'new calls go to the restarted (least-loaded) process');
});

t.test('SIGTERM stops the service and its media processes', async (t) => {
  const pids = logs.filter((l) => l.msg === 'media process started').map((l) => Number(l.pid));
  child.kill('SIGTERM');
  t.equal((await exited).code, 0);
  await sleep(200);
  for (const pid of pids) {
    let alive = true;
    try {
      process.kill(pid, 0);
    } catch {
      alive = false;
    }
    t.notOk(alive, `media process ${pid} is gone`);
  }
});
