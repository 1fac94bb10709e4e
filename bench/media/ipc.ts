// Messages between the benchmark orchestrator and its child processes (server, load client).

/** What a server counts itself; cumulative since it started. */
export interface ServerCounts {
  sessions: number;
  /** Frames its output queues dropped because they were full. */
  ringDrops: number;
  /** Frames dropped on purpose by BENCH_FAULT_DROP_EVERY (the self-check). */
  faultDrops: number;
  /** Agent calls (--agent): answers the engine started (first answer frame sent). */
  answers?: number;
}

export interface ServerStats extends ServerCounts {
  cpuUserMs: number;
  cpuSystemMs: number;
  rssBytes: number;
  /** V8 heap in use, and ArrayBuffer stores (the audio buffers), at the same moment as rssBytes. */
  heapUsedBytes: number;
  arrayBufferBytes: number;
}

/** The load client's counts over the measuring window (see load-client.c). */
export interface ClientStats {
  connected: number;
  refused: number;
  /** Output frames due in the window: per session, the input frames its schedule put there. */
  dueFrames: number;
  /** Input frames of the window written (due minus those a carrier session could not queue). */
  sentFrames: number;
  /** Frames due in the window that arrived within deadlineMs of their due time. */
  receivedFrames: number;
  /** Sum over sessions of due − received, each at least 0. */
  missingFrames: number;
  /** Received more than lateMs after due. */
  lateFrames: number;
  /** Missing frames that did come, after their deadline, while the client still listened. */
  expiredFrames: number;
  /** Server frames whose mark could not be read, or that repeated one already seen. */
  unidentifiedFrames: number;
  lateMs: number;
  deadlineMs: number;
  jitterP50Ms: number;
  jitterP99Ms: number;
  /** Arrival − due of the window's frames that came while the client listened (capped at 1000 ms). */
  latencyP50Ms: number;
  latencyP99Ms: number;
  cpuMs: number;
  windowMs: number;
  /** [target index, due, missing] of every session that missed frames. */
  lossy: [number, number, number][];
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

/**
 * Memory after a full GC when the child runs with --expose-gc (snapshots outside the measuring
 * window). Node-API finalizers (native objects and the typed arrays they hold) run from the
 * event loop after the GC that found them dead, so only a later GC frees what they released:
 * two GCs back to back left the native buffers of ended calls counted.
 */
export async function memoryBytes(gc: boolean | undefined): Promise<{ rssBytes: number; heapUsedBytes: number; arrayBufferBytes: number }> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (gc && collect) {
    for (let i = 0; i < 3; i++) {
      collect();
      await new Promise((r) => setImmediate(r));
    }
  }
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed, arrayBufferBytes: m.arrayBuffers };
}

export function cpuMs(): { user: number; system: number } {
  const u = process.cpuUsage();
  return { user: u.user / 1000, system: u.system / 1000 };
}

/**
 * BENCH_FAULT_DROP_EVERY=k, for the self-check (`--self-check`): a server drops every k-th
 * output frame of the first session that sends one. `drop` is asked once per output frame.
 */
export class Fault {
  readonly every = Number(process.env.BENCH_FAULT_DROP_EVERY ?? 0);
  private target: unknown = null;
  private frames = 0;
  dropped = 0;

  drop(session: unknown): boolean {
    if (this.every <= 0) return false;
    this.target ??= session;
    if (session !== this.target || this.frames++ % this.every !== this.every - 1) return false;
    this.dropped++;
    return true;
  }
}

/**
 * A server child's side of the protocol: answers `stats` (CPU, RSS after an optional full GC,
 * and what `counts` says), runs `exit` (default: exit at once), then says it is ready on `port`.
 */
export function serveBenchmark(port: number, counts: () => ServerCounts, exit: () => void = () => process.exit(0)): void {
  process.on('message', (m: ToChild) => {
    if (m.cmd === 'stats') {
      const c = cpuMs();
      void memoryBytes(m.gc).then((mem) => {
        const stats: ServerStats = { cpuUserMs: c.user, cpuSystemMs: c.system, ...mem, ...counts() };
        process.send!({ type: 'stats', stats });
      });
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
