// A counting semaphore with two FIFO lanes: work in the `first` lane always starts before work
// in the `second` lane, the second lane may hold only part of the slots (so a first-lane request
// never waits behind more than the first lane's own work), and each lane's queue is bounded so a
// flood waits in line or is refused rather than growing without end. Used to keep password hashing (scrypt on libuv's pool) from
// being starved by a flood of guesses.

export type Lane = 'first' | 'second';

export class GateFull extends Error {
  constructor(readonly lane: Lane) {
    super(`${lane} lane full`);
  }
}

export class ConcurrencyGate {
  private readonly running: Record<Lane, number> = { first: 0, second: 0 };
  private readonly queues: Record<Lane, (() => void)[]> = { first: [], second: [] };

  /** `secondLaneSlots` of the `capacity` slots at most run second-lane work. */
  constructor(
    private readonly capacity: number,
    private readonly secondLaneSlots: number,
    private readonly maxQueued: Record<Lane, number>,
  ) {}

  /** Runs `work` when a slot is free for its lane; throws GateFull at once when the lane's queue is full. */
  async run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    if (this.canStart(lane)) {
      this.running[lane]++;
    } else {
      const queue = this.queues[lane];
      if (queue.length >= this.maxQueued[lane]) throw new GateFull(lane);
      // The releaser counts this work as running before it wakes us.
      await new Promise<void>((resolve) => queue.push(resolve));
    }
    try {
      return await work();
    } finally {
      this.running[lane]--;
      this.wakeNext();
    }
  }

  private canStart(lane: Lane): boolean {
    if (this.running.first + this.running.second >= this.capacity) return false;
    return lane === 'first' || this.running.second < this.secondLaneSlots;
  }

  private wakeNext(): void {
    for (const lane of ['first', 'second'] as const) {
      const next = this.queues[lane][0];
      if (next && this.canStart(lane)) {
        this.queues[lane].shift();
        this.running[lane]++;
        next();
        return;
      }
    }
  }
}
