import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { freePort } from '../../scripts/free-port.js';
import { startHarness, type Harness, type HarnessOptions } from './harness.js';

export { freePort };

// A Redis server of the test's own, on its own port, that the test may stop and start again
// (never the shared one on 6379). No persistence: a restart loses every key, like a crash.

export interface OwnRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** SIGSTOP: connections stay open but nothing answers (a hung Redis); `resume` continues it. */
  pause(): void;
  resume(): void;
  close(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'own-redis-'));
  let child: ChildProcess | null = null;
  const start = async () => {
    if (child && child.exitCode === null) return; // already running
    const proc = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
    child = proc;
    await new Promise<void>((resolve, reject) => {
      let out = '';
      proc.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('Ready to accept connections')) resolve();
      });
      proc.once('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${out.slice(-500)}`)));
    });
  };
  const stop = async () => {
    const proc = child;
    child = null;
    if (!proc || proc.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      proc.once('exit', () => resolve());
      proc.kill('SIGKILL');
    });
  };
  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    start,
    stop,
    pause: () => void child?.kill('SIGSTOP'),
    resume: () => void child?.kill('SIGCONT'),
    close: async () => {
      if (child) child.kill('SIGCONT');
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A harness whose Redis (REDIS_URL) is one of the test's own, so the test may stop it: the file's
 * teardown starts it again, closes the harness, then closes Redis.
 */
export async function harnessOnOwnRedis(opts: HarnessOptions = {}): Promise<{ h: Harness; redis: OwnRedis }> {
  const redis = await startOwnRedis();
  const h = await startHarness({ ...opts, env: { ...opts.env, REDIS_URL: redis.url } });
  t.teardown(async () => {
    await redis.start();
    await h.close();
    await redis.close();
  });
  return { h, redis };
}
