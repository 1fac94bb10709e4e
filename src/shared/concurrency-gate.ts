// A counting semaphore with ordered lanes (highest priority first). Queued work of an earlier lane
// always starts before queued work of a later one, and each lane has a cap on the slots that it
// and every later lane may hold together, so later lanes can be kept off slots the earlier ones
// need. Queues are bounded per lane and in total; when the total is full, a newcomer of an earlier
// lane takes the place of the newest waiter of the latest lane behind it, which is shed (GateFull)
// instead of waiting, and a lane may shed waiters that waited longer than its limit. Used to keep password hashing (scrypt on libuv's pool) from being starved by
// a flood of guesses: the route answers GateFull with 429 and Retry-After.

export interface LaneRule<L extends string> {
  name: L;
  /** At most this many running at once in this lane and every later lane together. */
  slots: number;
  /** At most this many waiting in this lane. */
  queue: number;
  /** A waiter of this lane still waiting after this long is shed (GateFull): its client has likely given up. */
  maxWaitMs?: number;
}

export class GateFull<L extends string = string> extends Error {
  constructor(readonly lane: L) {
    super(`${lane} lane full`);
  }
}

interface Waiter {
  start(): void;
  shed(): void;
}

export class ConcurrencyGate<L extends string> {
  private readonly running: number[];
  private readonly queues: Waiter[][];
  private readonly index: Map<L, number>;

  /** `lanes` in priority order; the first lane's `slots` is the gate's capacity. */
  constructor(
    private readonly lanes: readonly LaneRule<L>[],
    private readonly maxQueuedTotal: number,
  ) {
    this.running = lanes.map(() => 0);
    this.queues = lanes.map(() => []);
    this.index = new Map(lanes.map((l, i) => [l.name, i]));
  }

  /** How many are waiting, per lane (for tests and metrics). */
  queued(): Record<L, number> {
    return Object.fromEntries(this.lanes.map((l, i) => [l.name, this.queues[i].length])) as Record<L, number>;
  }

  /** Whether work of this lane would start or wait now rather than be refused at once. */
  hasRoom(lane: L): boolean {
    const i = this.index.get(lane);
    if (i === undefined) return false;
    if (this.canStart(i)) return true;
    if (this.queues[i].length >= this.lanes[i].queue) return false;
    return this.totalQueued() < this.maxQueuedTotal || this.queues.some((q, j) => j > i && q.length > 0);
  }

  /** Runs `work` when a slot is free for its lane; throws GateFull when it cannot wait (at once or when shed later). */
  async run<T>(lane: L, work: () => Promise<T>): Promise<T> {
    const i = this.index.get(lane);
    if (i === undefined) throw new Error(`unknown lane ${lane}`);
    if (this.canStart(i)) this.running[i]++;
    else await this.wait(i, lane);
    try {
      return await work();
    } finally {
      this.running[i]--;
      this.wakeNext();
    }
  }

  private wait(i: number, lane: L): Promise<void> {
    const queue = this.queues[i];
    if (queue.length >= this.lanes[i].queue) throw new GateFull(lane);
    if (this.totalQueued() >= this.maxQueuedTotal && !this.shedBehind(i)) throw new GateFull(lane);
    // The releaser counts this work as running before it starts it.
    return new Promise<void>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        start: () => {
          clearTimeout(timer);
          resolve();
        },
        shed: () => {
          clearTimeout(timer);
          reject(new GateFull(lane));
        },
      };
      const maxWait = this.lanes[i].maxWaitMs;
      if (maxWait !== undefined) {
        timer = setTimeout(() => {
          const at = queue.indexOf(waiter);
          if (at < 0) return; // started or shed meanwhile
          queue.splice(at, 1);
          waiter.shed();
        }, maxWait);
      }
      queue.push(waiter);
    });
  }

  /** Sheds the newest waiter of the latest lane after `i` that has any; false when there is none. */
  private shedBehind(i: number): boolean {
    for (let j = this.lanes.length - 1; j > i; j--) {
      const victim = this.queues[j].pop();
      if (victim) {
        victim.shed();
        return true;
      }
    }
    return false;
  }

  private totalQueued(): number {
    return this.queues.reduce((n, q) => n + q.length, 0);
  }

  /** Lane i may start when, for it and every earlier lane, the slots held from that lane on are below its cap. */
  private canStart(i: number): boolean {
    let from = 0;
    for (let j = this.lanes.length - 1; j >= 0; j--) {
      from += this.running[j];
      if (j <= i && from >= this.lanes[j].slots) return false;
    }
    return true;
  }

  private wakeNext(): void {
    for (let i = 0; i < this.lanes.length; i++) {
      const next = this.queues[i][0];
      if (next && this.canStart(i)) {
        this.queues[i].shift();
        this.running[i]++;
        next.start();
        return;
      }
    }
  }
}
