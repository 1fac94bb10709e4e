// A small typed event emitter that runs in Node and in browsers.

export type Listener<T> = (value: T) => void;

export class Emitter<Events extends Record<string, unknown>> {
  private readonly listeners = new Map<keyof Events, Set<Listener<never>>>();

  on<K extends keyof Events>(event: K, fn: Listener<Events[K]>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(fn);
    return () => set.delete(fn);
  }

  /** The next `event` value. */
  once<K extends keyof Events>(event: K): Promise<Events[K]> {
    return new Promise((resolve) => {
      const off = this.on(event, (v) => {
        off();
        resolve(v);
      });
    });
  }

  protected emit<K extends keyof Events>(event: K, value: Events[K]): void {
    for (const fn of [...(this.listeners.get(event) ?? [])]) (fn as Listener<Events[K]>)(value);
  }
}
