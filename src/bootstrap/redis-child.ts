import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, join, resolve } from 'node:path';
import { waitUntil } from './reachable.js';
import { stopChild, type LocalServer } from './local-server.js';

// A redis-server of the service's own (first run, development), from the PATH: 127.0.0.1 only,
// data (append-only file) in DATA_DIR/redis, a child process stopped with the service.

export const INSTALL_REDIS =
  'redis-server is not installed: install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a Redis server';

/** The redis-server on the PATH, or null. */
export function findRedisServer(path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'redis-server');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

/** Whether a Redis answers PING on 127.0.0.1:port. */
function pong(port: number): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(500, () => finish(false));
    socket.once('error', () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (d: Buffer) => {
      reply += d.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

export async function startRedisChild(dataDir: string, port: number, redisServer: string): Promise<LocalServer> {
  const dir = resolve(dataDir, 'redis');
  mkdirSync(dir, { recursive: true });
  const args = [
    '--port', String(port),
    '--bind', '127.0.0.1',
    '--dir', dir,
    '--appendonly', 'yes',
    '--save', '',
    // BullMQ's queues must never be evicted.
    '--maxmemory-policy', 'noeviction',
    '--logfile', join(dir, 'redis.log'),
    '--daemonize', 'no',
  ];
  // Its own process group: a terminal's Ctrl-C reaches the service, which drains first, then stops it.
  const child = spawn(redisServer, args, { detached: true, stdio: 'ignore' });
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = `it exited (${signal ?? code}); see ${join(dir, 'redis.log')}`));
  child.once('error', (err) => (exited = err.message));
  await waitUntil(() => pong(port), `redis-server on 127.0.0.1:${port} did not start`, 30_000, () => exited).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    url: `redis://127.0.0.1:${port}`,
    child,
    marker: 'redis-server',
    // SIGTERM: redis-server flushes its append-only file and exits.
    stop: () => stopChild(child, 'SIGTERM', 'SIGKILL', 10_000),
  };
}
