import type { ChildProcess } from 'node:child_process';

/** A service (Postgres, Redis) this process started for itself. */
export interface LocalServer {
  url: string;
  child: ChildProcess;
  /** What the child's command line carries (child-process-record.ts). */
  marker: string;
  stop(): Promise<void>;
}

/** Stops a child of ours and waits for its exit event (`hard` after `graceMs`). */
export function stopChild(child: ChildProcess, soft: NodeJS.Signals, hard: NodeJS.Signals, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => {
    const timer = setTimeout(() => child.kill(hard), graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      done();
    });
    child.kill(soft);
  });
}
