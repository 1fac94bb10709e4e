import { spawn } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { postgresBinaries, postgresUser } from './postgres-binaries.js';
import { waitUntil } from './reachable.js';
import { stopChild, type LocalServer } from './local-server.js';

// A Postgres cluster of the service's own (first run, development): data in DATA_DIR/postgres,
// log in DATA_DIR/postgres.log, on 127.0.0.1 only (no Unix socket), trust authentication for
// user `postgres`. The postmaster is a child process: stopped with the service.

function logTail(path: string): string {
  try {
    return readFileSync(path, 'utf8').trim().split('\n').slice(-3).join(' | ');
  } catch {
    return '';
  }
}

function run(cmd: string, args: string[], opts: { uid?: number; gid?: number; logFd: number }): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { ...opts, stdio: ['ignore', opts.logFd, opts.logFd], env: { ...process.env, LC_ALL: 'C' } });
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`${cmd} exited with ${code}`))));
  });
}

export async function startEmbeddedPostgres(dataDir: string, port: number): Promise<LocalServer> {
  const bin = await postgresBinaries();
  const owner = postgresUser();
  const pgdata = resolve(dataDir, 'postgres');
  const logPath = resolve(dataDir, 'postgres.log');
  const ids = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const logFd = openSync(logPath, 'a');
  try {
    if (!existsSync(join(pgdata, 'PG_VERSION'))) {
      // No cluster yet (or a half-made one from an interrupted first run): make it.
      rmSync(pgdata, { recursive: true, force: true });
      mkdirSync(pgdata, { recursive: true, mode: 0o700 });
      if (owner) chownSync(pgdata, owner.uid, owner.gid);
      await run(bin.initdb, ['-D', pgdata, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-locale'], { ...ids, logFd }).catch((err: Error) => {
        const hint = owner ? ' (as root it runs as the postgres user, who must be able to reach DATA_DIR)' : '';
        throw new Error(`the embedded Postgres could not create its cluster in ${pgdata}${hint}: ${err.message}; ${logTail(logPath)}`);
      });
    }
    const args = ['-D', pgdata, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='];
    // Its own process group: a terminal's Ctrl-C reaches the service, which drains first, then stops it.
    const child = spawn(bin.postgres, args, { ...ids, detached: true, stdio: ['ignore', logFd, logFd], env: { ...process.env, LC_ALL: 'C' } });
    let exited: string | null = null;
    child.once('exit', (code, signal) => (exited = `it exited (${signal ?? code}); see ${logPath}: ${logTail(logPath)}`));
    child.once('error', (err) => (exited = err.message));
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const probe = async () => {
      const sql = postgres(url, { max: 1, connect_timeout: 1, onnotice: () => {} });
      try {
        await sql`select 1`;
        return true;
      } catch {
        return false;
      } finally {
        await sql.end({ timeout: 1 });
      }
    };
    await waitUntil(probe, `the embedded Postgres on 127.0.0.1:${port} did not start`, 60_000, () => exited).catch((err: unknown) => {
      child.kill('SIGQUIT');
      throw err;
    });
    return {
      url: `postgres://postgres@127.0.0.1:${port}/voice`,
      child,
      marker: pgdata,
      // SIGINT is Postgres's fast shutdown: open sessions are cut, the data is written out.
      stop: () => stopChild(child, 'SIGINT', 'SIGQUIT', 15_000),
    };
  } finally {
    closeSync(logFd);
  }
}
