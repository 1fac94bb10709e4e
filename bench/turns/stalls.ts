// Event-loop stalls of a benchmark process, with how much of each the main thread spent
// runnable but not running (waiting for a CPU: /proc/self/task/<pid>/schedstat, Linux). A
// stall that is all run-queue wait is the machine's load, not our code.
import { readFileSync } from 'node:fs';

export interface Stall {
  /** Epoch ms (performance.timeOrigin based, comparable across processes) the stall began. */
  epochMs: number;
  ms: number;
  runqueueMs: number;
}

export interface StallReport {
  stalls: Stall[];
  /** Share of wall time the main thread waited for a CPU while runnable. */
  runqueueShare: number | null;
}

const TICK_MS = 10;
const MIN_STALL_MS = 40;

function runqueueNs(): number | null {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return null;
  }
}

export class StallMonitor {
  readonly stalls: Stall[] = [];
  private timer: NodeJS.Timeout | null = null;
  private last = 0;
  private lastWait: number | null = null;
  private startWait: number | null = null;
  private startAt = 0;

  start(): void {
    this.stalls.length = 0;
    this.last = this.startAt = performance.now();
    this.lastWait = this.startWait = runqueueNs();
    this.timer = setInterval(() => {
      const now = performance.now();
      const wait = runqueueNs();
      const ms = now - this.last;
      if (ms >= TICK_MS + MIN_STALL_MS) {
        const runqueueMs = wait !== null && this.lastWait !== null ? (wait - this.lastWait) / 1e6 : NaN;
        this.stalls.push({ epochMs: Math.round(performance.timeOrigin + this.last), ms: Math.round(ms), runqueueMs: Math.round(runqueueMs) });
      }
      this.last = now;
      this.lastWait = wait;
    }, TICK_MS);
  }

  stop(): StallReport {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const wait = runqueueNs();
    const wall = performance.now() - this.startAt;
    const share = wait !== null && this.startWait !== null ? Math.round(((wait - this.startWait) / 1e6 / wall) * 1000) / 1000 : null;
    return { stalls: this.stalls, runqueueShare: share };
  }
}

/** The longest stall of `stalls` overlapping [fromEpochMs, toEpochMs], or 0. */
export function stallIn(stalls: Stall[], fromEpochMs: number, toEpochMs: number): number {
  let max = 0;
  for (const s of stalls) if (s.epochMs <= toEpochMs && s.epochMs + s.ms >= fromEpochMs) max = Math.max(max, s.ms);
  return max;
}

/**
 * Stalls this process's event loop on purpose: a busy wait of `minMs`-`maxMs` every
 * `gapMinMs`-`gapMaxMs` (uniform, seeded), as a garbage collection, a slow synchronous call or
 * a noisy neighbour would. Each stall is recorded (epoch ms, length).
 */
export class StallInjector {
  readonly injected: { epochMs: number; ms: number }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private seed: number;

  constructor(seed: number, private readonly o: { minMs: number; maxMs: number; gapMinMs: number; gapMaxMs: number }) {
    this.seed = seed >>> 0 || 1;
  }

  private next(): number {
    // xorshift32: enough for timings.
    let x = this.seed;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.seed = x >>> 0;
    return this.seed / 2 ** 32;
  }

  start(): void {
    const schedule = () => {
      this.timer = setTimeout(() => {
        const ms = this.o.minMs + (this.o.maxMs - this.o.minMs) * this.next();
        const t0 = performance.now();
        while (performance.now() - t0 < ms) {
          // busy: the event loop is held
        }
        this.injected.push({ epochMs: Math.round(performance.timeOrigin + t0), ms: Math.round(performance.now() - t0) });
        schedule();
      }, this.o.gapMinMs + (this.o.gapMaxMs - this.o.gapMinMs) * this.next());
    };
    schedule();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
