// One timer for every call on this node: each tick sends the frames that are due, so output
// runs at real time with a bounded lead, whatever the number of calls.
//
// A tick only visits the calls that hold frames back (lead or backpressure): a call whose
// output went out as it was produced (the usual case: one frame per caller message) costs the
// timer nothing, so the tick does not grow with the number of calls. Every call is also
// visited once its max-duration deadline passes.
//
// Under heavy socket traffic the event loop can run Node timers only every few hundred ms
// (measured: uWS keeps the loop in its poll phase), so incoming messages also `poke` the
// pacer: whichever comes first, the timer or a message, runs the tick once it is due.

export const PACER_TICK_MS = 5;
/** Audio sent ahead of real time; the contract allows at most 200 ms. */
export const PACE_LEAD_MS = 60;

export interface Paced {
  /** Monotonic ms at which the call must end (max duration). */
  readonly deadlineMs: number;
  /** Sends what is due at `nowMs` (ends the call past its deadline). Returns whether frames still wait; must not throw. */
  pace(nowMs: number): boolean;
}

export class Pacer {
  private readonly members = new Set<Paced>();
  /** Members holding frames back: visited on every tick until they have none. */
  private readonly waiting = new Set<Paced>();
  /** The earliest deadline among members (Infinity when none). */
  private nextDeadlineMs = Infinity;
  private timer: NodeJS.Timeout | null = null;
  private lastTickMs = 0;

  constructor(private readonly now: () => number, private readonly tickMs = PACER_TICK_MS) {}

  add(p: Paced): void {
    this.members.add(p);
    if (p.deadlineMs < this.nextDeadlineMs) this.nextDeadlineMs = p.deadlineMs;
    if (!this.timer) this.timer = setInterval(this.tick, this.tickMs);
  }

  delete(p: Paced): void {
    this.members.delete(p);
    this.waiting.delete(p);
    if (this.members.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
      this.nextDeadlineMs = Infinity;
    }
  }

  /** `p` holds frames back: pace it on every tick until it reports none. */
  wait(p: Paced): void {
    if (this.members.has(p)) this.waiting.add(p);
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
    if (nowMs >= this.nextDeadlineMs) this.endDue(nowMs);
    for (const p of this.waiting) if (!p.pace(nowMs)) this.waiting.delete(p);
  }

  /** A deadline passed: pace every member (those past theirs end) and find the next deadline. */
  private endDue(nowMs: number): void {
    let next = Infinity;
    for (const p of this.members) {
      if (p.deadlineMs <= nowMs) p.pace(nowMs);
      else if (p.deadlineMs < next) next = p.deadlineMs;
    }
    this.nextDeadlineMs = next;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.members.clear();
    this.waiting.clear();
    this.nextDeadlineMs = Infinity;
  }
}
