// Messages between the benchmark orchestrator and its child processes (server, load client).

export interface ServerStats {
  cpuUserMs: number;
  cpuSystemMs: number;
  rssBytes: number;
  sessions: number;
  droppedFrames: number;
}

export interface ClientStats {
  connected: number;
  refused: number;
  sentFrames: number;
  receivedFrames: number;
  jitterP50Ms: number;
  jitterP99Ms: number;
  cpuMs: number;
  windowMs: number;
}

/** A carrier (Twilio media stream) session: what its `start` message carries. */
export interface CarrierStart {
  sessionId: string;
  token: string;
  accountSid: string;
  callSid: string;
}

export type ToChild =
  | { cmd: 'stats'; gc?: boolean }
  | { cmd: 'start'; urls: string[]; carrier?: CarrierStart[]; warmupMs: number; measureMs: number }
  | { cmd: 'hangup' }
  | { cmd: 'exit' };

/** RSS after a full GC when the child runs with --expose-gc (snapshots outside the measuring window). */
export function rssBytes(gc: boolean | undefined): number {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (gc && collect) {
    collect();
    collect();
  }
  return process.memoryUsage().rss;
}

export function cpuMs(): { user: number; system: number } {
  const u = process.cpuUsage();
  return { user: u.user / 1000, system: u.system / 1000 };
}

/**
 * A server child's side of the protocol: answers `stats` (CPU, RSS after an optional full GC,
 * and what `counts` says), runs `exit` (default: exit at once), then says it is ready on `port`.
 */
export function serveBenchmark(port: number, counts: () => { sessions: number; droppedFrames: number }, exit: () => void = () => process.exit(0)): void {
  process.on('message', (m: ToChild) => {
    if (m.cmd === 'stats') {
      const c = cpuMs();
      const stats: ServerStats = { cpuUserMs: c.user, cpuSystemMs: c.system, rssBytes: rssBytes(m.gc), ...counts() };
      process.send!({ type: 'stats', stats });
    } else if (m.cmd === 'exit') exit();
  });
  process.send!({ type: 'ready', port });
}

/** Resolves with the next IPC message from `proc` that satisfies `pick`. */
export function nextMessage<T>(proc: NodeJS.EventEmitter, pick: (m: any) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: unknown) => {
      if (pick(m)) {
        proc.off('message', on);
        resolve(m as T);
      }
    };
    proc.on('message', on);
  });
}
