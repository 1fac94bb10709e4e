// One timer for every call on this node: each tick sends each call the frames it is due, so
// output runs at real time with a bounded lead, whatever the number of calls.
//
// Under heavy socket traffic the event loop can run Node timers only every few hundred ms
// (measured: uWS keeps the loop in its poll phase), so incoming messages also `poke` the
// pacer: whichever comes first, the timer or a message, runs the tick once it is due.

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
  private lastTickMs = 0;

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

  /** Runs the tick if one is due; called from socket callbacks. */
  poke(nowMs: number): void {
    if (nowMs - this.lastTickMs >= this.tickMs) this.run(nowMs);
  }

  private readonly tick = (): void => {
    this.run(this.now());
  };

  private run(nowMs: number): void {
    this.lastTickMs = nowMs;
    for (const p of this.members) p.pace(nowMs);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.members.clear();
  }
}
