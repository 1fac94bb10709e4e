import { fork, type ChildProcess } from 'node:child_process';
import type { AppContext } from '../shared/app-context.js';
import { mediaPublicUrl } from './media-url.js';
import { markNodeDead } from '../media/node-registry.js';

// MEDIA_PROCESSES=N (N > 1): the media role of this host is N child processes of the same entry
// point, one per core, on MEDIA_PORT, MEDIA_PORT+1, ... Each child is an ordinary media-only
// process (ROLES=media) that registers itself in Redis with its own public URL, so admission
// spreads calls over them like over nodes on other hosts. A child that dies is started again
// with backoff; its calls are settled by the worker's sweeper once their lease runs out, as for
// any dead node (the new child has a new node id). Each child names its node id over IPC once
// registered, so its death also takes its entry out of the registry at once instead of when its
// last heartbeat runs out (NODE_TTL_MS): no admission sends a call to a process that is gone.

/** What a child sends its supervisor once its media node is registered. */
export interface MediaNodeMessage {
  type: 'media-node';
  nodeId: string;
}

/** First restart delay; doubles per quick death up to RESTART_MAX_MS. */
export const RESTART_MIN_MS = 500;
export const RESTART_MAX_MS = 30_000;
/** A child that lived this long died "normally": the next restart starts from the minimum delay again. */
const HEALTHY_AFTER_MS = 30_000;
/** Past the drain grace, a child that still has not exited on SIGTERM is killed. */
const STOP_MARGIN_MS = 15_000;

interface Slot {
  index: number;
  child: ChildProcess | null;
  /** The running child's media node id, once it said (MediaNodeMessage). */
  nodeId: string | null;
  startedAt: number;
  delayMs: number;
  timer: NodeJS.Timeout | null;
  exited: Promise<void>;
}

/** The environment of child `index`: media only, its own port, public URL and metrics port. */
export function childEnv(ctx: AppContext, index: number): NodeJS.ProcessEnv {
  const c = ctx.config;
  const port = c.MEDIA_PORT + index;
  return {
    ...process.env,
    // The resolved stores (first run may have started local ones): the children must not start their own.
    DATABASE_URL: c.DATABASE_URL,
    REDIS_URL: c.REDIS_URL,
    ROLES: 'media',
    MEDIA_PROCESSES: '1',
    MEDIA_PORT: String(port),
    PUBLIC_MEDIA_URL: mediaPublicUrl(c.PUBLIC_MEDIA_URL, port, index, c.MEDIA_PROCESSES),
    METRICS_PORT: String(c.METRICS_PORT === 0 ? 0 : c.METRICS_PORT + 1 + index),
    MEDIA_SUPERVISED: '1',
  };
}

export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const n = ctx.config.MEDIA_PROCESSES;
  const log = ctx.log.child({ role: 'media-supervisor' });
  // Fails here, before any child starts, when the public URLs cannot be told apart.
  for (let i = 0; i < n; i++) childEnv(ctx, i);
  let stopping = false;
  const slots: Slot[] = [];

  const forget = (index: number, nodeId: string) =>
    markNodeDead(ctx, nodeId).then(
      (found) => log.info({ index, node_id: nodeId, found }, 'dead media process taken out of the registry'),
      (err: unknown) => log.warn({ index, node_id: nodeId, err: { message: (err as Error).message } }, 'dead media process not taken out of the registry (Redis); its entry expires on its own'),
    );

  const launch = (slot: Slot) => {
    slot.timer = null;
    const child = fork(process.argv[1], process.argv.slice(2), { env: childEnv(ctx, slot.index), execArgv: process.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    slot.child = child;
    slot.nodeId = null;
    slot.startedAt = Date.now();
    child.on('message', (m: Partial<MediaNodeMessage>) => {
      if (m?.type === 'media-node' && typeof m.nodeId === 'string') slot.nodeId = m.nodeId;
    });
    log.info({ index: slot.index, pid: child.pid, media_port: ctx.config.MEDIA_PORT + slot.index }, 'media process started');
    slot.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        slot.child = null;
        resolve();
        if (stopping) return;
        const lived = Date.now() - slot.startedAt;
        slot.delayMs = lived >= HEALTHY_AFTER_MS ? RESTART_MIN_MS : Math.min(RESTART_MAX_MS, slot.delayMs * 2);
        log.error({ index: slot.index, code, signal, lived_ms: lived, restart_in_ms: slot.delayMs }, 'media process died; its calls are settled by the sweeper; restarting');
        if (slot.nodeId) void forget(slot.index, slot.nodeId);
        slot.timer = setTimeout(() => launch(slot), slot.delayMs);
      }),
    );
  };

  for (let i = 0; i < n; i++) {
    // delayMs starts at half the minimum: the first quick death waits RESTART_MIN_MS.
    const slot: Slot = { index: i, child: null, nodeId: null, startedAt: 0, delayMs: RESTART_MIN_MS / 2, timer: null, exited: Promise.resolve() };
    slots.push(slot);
    launch(slot);
  }
  log.info({ processes: n, first_port: ctx.config.MEDIA_PORT }, 'media processes supervised');

  return async () => {
    stopping = true;
    await Promise.all(
      slots.map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        const child = slot.child;
        if (!child) return;
        child.kill('SIGTERM'); // each child drains its own calls (DRAIN_GRACE_MS)
        const killer = setTimeout(() => child.kill('SIGKILL'), ctx.config.DRAIN_GRACE_MS + STOP_MARGIN_MS);
        await slot.exited;
        clearTimeout(killer);
      }),
    );
  };
}
