import { execFile } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './own-redis.js';

// A Postgres server of the test's own, on its own port, that the test may stop and start again
// (never the shared one on 5432). Its data directory lives in a temporary directory, so a stop
// keeps the data (a real outage, not a loss). Trust authentication for user `postgres`.
// As root the server must run as the `postgres` user (initdb and postgres refuse root).

const run = promisify(execFile);

export interface OwnPostgres {
  port: number;
  /** Connection string of the server (no database): append `/name`. */
  base: string;
  start(): Promise<void>;
  /** Fast shutdown: connections are cut, the port closes until `start`. */
  stop(): Promise<void>;
  close(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  if (!versions.length) throw new Error('no PostgreSQL binaries under /usr/lib/postgresql');
  return join(root, versions[0], 'bin');
}

function asPostgres(cmd: string, args: string[]): [string, string[]] {
  return userInfo().uid === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}

async function pgUid(): Promise<number | null> {
  if (userInfo().uid !== 0) return null;
  const { stdout } = await run('id', ['-u', 'postgres']);
  return Number(stdout.trim());
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const bin = binDir();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'own-pg-'));
  const data = join(dir, 'data');
  const uid = await pgUid();
  if (uid !== null) chownSync(dir, uid, uid);
  const ctl = async (args: string[]) => {
    const [cmd, argv] = asPostgres(join(bin, 'pg_ctl'), args);
    await run(cmd, argv);
  };
  {
    const [cmd, argv] = asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    await run(cmd, argv);
  }
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100`;
  let running = false;
  const start = async () => {
    if (running) return;
    await ctl(['-D', data, '-l', join(dir, 'log'), '-w', '-o', options, 'start']);
    running = true;
  };
  const stop = async () => {
    if (!running) return;
    running = false;
    await ctl(['-D', data, '-m', 'fast', '-w', 'stop']);
  };
  await start();
  return {
    port,
    base: `postgres://postgres@127.0.0.1:${port}`,
    start,
    stop,
    close: async () => {
      await stop().catch(() => {
        // pg_ctl could not stop it: kill our postmaster by the pid it recorded.
        const pid = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
        if (pid > 0) process.kill(pid, 'SIGKILL');
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
