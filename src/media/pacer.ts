// One timer for every call on this node: each tick sends the frames that are due, so output
// runs at real time with a bounded lead, whatever the number of calls.
//
// A tick does not walk every call. A call that holds frames back (the lead, or backpressure)
// says when it next has one due, and waits in a timing wheel of tick-sized slots until then;
// a call whose output went out as it was produced costs the timer nothing. Calls ahead by the
// full lead (common: the lead only shrinks when caller audio comes late) are thus visited once
// per frame instead of on every tick. Every call is also visited once its max-duration
// deadline passes.
//
// Under heavy socket traffic the event loop can run Node timers only every few hundred ms
// (measured: uWS keeps the loop in its poll phase), so incoming messages also `poke` the
// pacer: whichever comes first, the timer or a message, runs the tick once it is due.

import { pacerLateness } from '../metrics/media.js';

export const PACER_TICK_MS = 5;
/** Audio sent ahead of real time; the contract allows at most 200 ms. */
export const PACE_LEAD_MS = 60;
/** Wheel slots: a horizon of 64 ticks (320 ms at 5 ms) is well beyond the lead plus a frame. */
const SLOTS = 64;
/** A gap this long between the pacer's runs (every tick, and every caller message) is a stall of the event loop. */
export const STALL_MS = 40;

export interface Paced {
  /** Monotonic ms at which the call must end (max duration). */
  readonly deadlineMs: number;
  /** The pacer's bookkeeping: the tick (absolute index) this call waits for, -1 when none. */
  pacerTick: number;
  /**
   * Sends what is due at `nowMs` (ends the call past its deadline); must not throw. Returns
   * when it next has a frame due (ms; `nowMs` to retry at the next tick), or -1 when none waits.
   */
  pace(nowMs: number): number;
}

export class Pacer {
  private readonly members = new Set<Paced>();
  /** wheel[k % SLOTS]: calls waiting for tick k (entries whose pacerTick changed since are skipped). */
  private readonly wheel: Paced[][] = Array.from({ length: SLOTS }, () => []);
  /** Calls due later within the tick of the last run: looked at again by every run. */
  private current: Paced[] = [];
  /** The tick index (floor(ms / tickMs)) of the last run. */
  private lastTick = 0;
  /** The earliest deadline among members (Infinity when none). */
  private nextDeadlineMs = Infinity;
  private timer: NodeJS.Timeout | null = null;
  private lastTickMs = 0;
  /** The last time the loop was seen running (-1: not watching), and the last stall seen. */
  private aliveMs = -1;
  private stallFromMs = 0;
  private stallToMs = 0;

  constructor(private readonly now: () => number, private readonly tickMs = PACER_TICK_MS) {}

  add(p: Paced): void {
    this.members.add(p);
    p.pacerTick = -1;
    if (p.deadlineMs < this.nextDeadlineMs) this.nextDeadlineMs = p.deadlineMs;
    if (!this.timer) {
      this.aliveMs = this.now();
      this.lastTick = Math.floor(this.now() / this.tickMs);
      this.timer = setInterval(this.tick, this.tickMs);
    }
  }

  delete(p: Paced): void {
    this.members.delete(p);
    p.pacerTick = -1; // its wheel entry, if any, is skipped from now on
    if (this.members.size === 0 && this.timer) this.stop();
  }

  /** `p` has a frame due at `atMs` (now or earlier: retry at the next run). */
  wait(p: Paced, atMs: number): void {
    if (!this.timer) return;
    const k = Math.min(Math.max(Math.floor(atMs / this.tickMs), this.lastTick), this.lastTick + SLOTS - 1);
    // Already waiting for this tick or an earlier one: that visit reschedules it as needed.
    if (p.pacerTick !== -1 && p.pacerTick <= k) return;
    p.pacerTick = k;
    (k === this.lastTick ? this.current : this.wheel[k % SLOTS]).push(p);
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

  /**
   * How much of [fromMs, toMs] the event loop spent in a stall that ended less than STALL_MS
   * before `toMs` (0 otherwise): time in which calls sent nothing and their callers' audio
   * queued up unread.
   */
  stalledMs(fromMs: number, toMs: number): number {
    this.observe(toMs);
    if (toMs - this.stallToMs >= STALL_MS) return 0;
    return Math.max(0, Math.min(toMs, this.stallToMs) - Math.max(fromMs, this.stallFromMs));
  }

  private observe(nowMs: number): void {
    if (this.aliveMs < 0) return;
    if (nowMs - this.aliveMs > STALL_MS) {
      this.stallFromMs = this.aliveMs;
      this.stallToMs = nowMs;
    }
    if (nowMs > this.aliveMs) this.aliveMs = nowMs;
  }

  private run(nowMs: number): void {
    this.observe(nowMs);
    this.lastTickMs = nowMs;
    if (nowMs >= this.nextDeadlineMs) this.endDue(nowMs);
    const last = Math.floor(nowMs / this.tickMs);
    let batch = this.current;
    this.current = [];
    // The ticks since the last run (a late timer may span many; after a full lap every slot is due).
    for (let k = Math.max(this.lastTick + 1, last - SLOTS + 1); k <= last; k++) {
      const slot = this.wheel[k % SLOTS];
      if (slot.length === 0) continue;
      batch = batch.length === 0 ? slot : batch.concat(slot);
      this.wheel[k % SLOTS] = [];
    }
    if (last > this.lastTick) pacerLateness.observe(nowMs - (this.lastTick + 1) * this.tickMs);
    this.lastTick = last;
    for (const p of batch) {
      // Entries of calls visited or rescheduled since they were queued are stale.
      if (p.pacerTick === -1 || p.pacerTick > last) continue;
      p.pacerTick = -1;
      const at = p.pace(nowMs);
      if (at >= 0) this.wait(p, at);
    }
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
    this.aliveMs = -1;
    this.members.clear();
    for (let i = 0; i < SLOTS; i++) this.wheel[i] = [];
    this.current = [];
    this.nextDeadlineMs = Infinity;
  }
}
