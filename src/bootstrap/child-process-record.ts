import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

// The local services are children of the service. If the service is killed outright (SIGKILL, a
// crash of the machine's OOM killer), they outlive it: this file in DATA_DIR records who owns
// which child, so the next start stops the leftovers before starting its own.

export interface ChildRecord {
  name: string;
  pid: number;
  /** A piece of the child's command line, so a reused pid is never taken for ours. */
  marker: string;
}

interface RecordFile {
  owner: number;
  children: ChildRecord[];
}

const FILE = 'local-services.json';

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
  } catch {
    return '';
  }
}

/** Whether `pid` still runs the child recorded (same pid, command line that carries the marker). */
export function stillOurs(child: ChildRecord): boolean {
  return alive(child.pid) && commandLine(child.pid).includes(child.marker);
}

export function writeRecord(dataDir: string, children: ChildRecord[]): void {
  writeFileSync(join(dataDir, FILE), JSON.stringify({ owner: process.pid, children } satisfies RecordFile));
}

export function removeRecord(dataDir: string): void {
  rmSync(join(dataDir, FILE), { force: true });
}

/**
 * Children a previous service process left running when it died. None while that process still
 * runs (a second service on the same DATA_DIR uses the first one's services; they answer).
 */
export function leftoverChildren(dataDir: string): ChildRecord[] {
  const path = join(dataDir, FILE);
  if (!existsSync(path)) return [];
  let record: RecordFile;
  try {
    record = JSON.parse(readFileSync(path, 'utf8')) as RecordFile;
  } catch {
    return [];
  }
  if (record.owner !== process.pid && alive(record.owner) && commandLine(record.owner).includes('node')) return [];
  return record.children.filter(stillOurs);
}

/** Signals a process and waits for it to go; `hard` follows when it is still there after `graceMs`. */
export async function stopProcess(pid: number, soft: NodeJS.Signals, hard: NodeJS.Signals, graceMs: number): Promise<void> {
  try {
    process.kill(pid, soft);
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid)) {
    if (Date.now() > deadline) {
      try {
        process.kill(pid, hard);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 200));
      return;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
