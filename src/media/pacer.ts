// One timer for every call on this node: each tick sends each call the frames it is due, so
// output runs at real time with a bounded lead, whatever the number of calls.

export const PACER_TICK_MS = 5;
/** Audio sent ahead of real time; the contract allows at most 200 ms. */
export const PACE_LEAD_MS = 60;

export interface Paced {
  /** Sends what is due at `nowMs`; must not throw. */
  pace(nowMs: number): void;
}

export class Pacer {
  private readonly members = new Set<Paced>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly now: () => number, private readonly tickMs = PACER_TICK_MS) {}

  add(p: Paced): void {
    this.members.add(p);
    if (!this.timer) this.timer = setInterval(this.tick, this.tickMs);
  }

  delete(p: Paced): void {
    this.members.delete(p);
    if (this.members.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  get size(): number {
    return this.members.size;
  }

  private readonly tick = (): void => {
    const nowMs = this.now();
    for (const p of this.members) p.pace(nowMs);
  };

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.members.clear();
  }
}
