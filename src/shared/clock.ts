/** Injectable time source so tests can move time without sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can set and advance. */
export class ManualClock implements Clock {
  private ms: number;
  constructor(start: Date | number = Date.now()) {
    this.ms = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
  set(at: Date | number): void {
    this.ms = typeof at === 'number' ? at : at.getTime();
  }
}
