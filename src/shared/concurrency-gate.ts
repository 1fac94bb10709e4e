// A counting semaphore with two FIFO lanes: work in the `first` lane always starts before work
// in the `second` lane, and each lane's queue is bounded so a flood waits in line or is refused
// rather than growing without end. Used to keep password hashing (scrypt on libuv's pool) from
// being starved by a flood of guesses.

export type Lane = 'first' | 'second';

export class GateFull extends Error {
  constructor(readonly lane: Lane) {
    super(`${lane} lane full`);
  }
}

export class ConcurrencyGate {
  private running = 0;
  private readonly queues: Record<Lane, (() => void)[]> = { first: [], second: [] };

  constructor(
    private readonly capacity: number,
    private readonly maxQueued: Record<Lane, number>,
  ) {}

  /** Runs `work` when a slot is free; throws GateFull at once when the lane's queue is full. */
  async run<T>(lane: Lane, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.capacity) {
      const queue = this.queues[lane];
      if (queue.length >= this.maxQueued[lane]) throw new GateFull(lane);
      await new Promise<void>((resolve) => queue.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await work();
    } finally {
      this.release();
    }
  }

  get queued(): number {
    return this.queues.first.length + this.queues.second.length;
  }

  private release(): void {
    // The slot passes straight to the next waiter, first lane before second.
    const next = this.queues.first.shift() ?? this.queues.second.shift();
    if (next) next();
    else this.running--;
  }
}
