// A one-consumer async queue: producers push from socket callbacks, the engine pulls with
// for-await. `fail` ends the iteration with an error after what was already queued.
// Breaking out of the loop calls `onReturn` (so the adapter can close its socket).

export class AsyncQueue<T> implements AsyncIterable<T> {
  private items: T[] = [];
  private waiter: { resolve: (r: IteratorResult<T>) => void; reject: (e: Error) => void } | null = null;
  private ended = false;
  private error: Error | null = null;

  constructor(private readonly onReturn: () => void = () => {}) {}

  get closed(): boolean {
    return this.ended;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter) {
      const w = this.waiter;
      this.waiter = null;
      w.resolve({ value: item, done: false });
    } else this.items.push(item);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.wake();
  }

  fail(err: Error): void {
    if (this.ended) return;
    this.ended = true;
    this.error = err;
    this.wake();
  }

  private wake(): void {
    if (!this.waiter || this.items.length) return;
    const w = this.waiter;
    this.waiter = null;
    if (this.error) w.reject(this.error);
    else w.resolve({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<T>> {
    if (this.items.length) return Promise.resolve({ value: this.items.shift() as T, done: false });
    if (this.ended) {
      if (this.error) {
        const e = this.error;
        this.error = null; // reported once
        return Promise.reject(e);
      }
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => this.next(),
      return: async () => {
        this.items = [];
        this.end();
        this.onReturn();
        return { value: undefined, done: true };
      },
    };
  }
}
