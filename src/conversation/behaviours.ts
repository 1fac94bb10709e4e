import type { CallAgent } from './call-config.js';

// The agent's clocks (spec 2.1): dead air after the caller's turn, idle warning and hang-up
// when neither side speaks, and the goodbye before max_duration. Timers only; what they say
// and do is the engine's.

export interface BehaviourActions {
  deadAir(): void;
  idleWarn(): void;
  idleHangup(): void;
  maxDuration(): void;
}

export class CallBehaviours {
  private deadAirTimer: NodeJS.Timeout | null = null;
  private idleWarnTimer: NodeJS.Timeout | null = null;
  private idleHangupTimer: NodeJS.Timeout | null = null;
  private maxTimer: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(private readonly agent: CallAgent, private readonly actions: BehaviourActions) {}

  /** `goodbyeAtMs` from now: when the max-duration goodbye must start to end in time. */
  start(goodbyeAtMs: number): void {
    this.maxTimer = setTimeout(() => !this.stopped && this.actions.maxDuration(), Math.max(0, goodbyeAtMs));
  }

  /** Nobody is speaking from now on: the idle clocks run. */
  quiet(): void {
    this.clearIdle();
    if (this.stopped) return;
    const { idleWarnSeconds: warn, idleHangupSeconds: hangup } = this.agent;
    if (warn !== null) this.idleWarnTimer = setTimeout(() => !this.stopped && this.actions.idleWarn(), warn * 1000);
    if (hangup !== null) this.idleHangupTimer = setTimeout(() => !this.stopped && this.actions.idleHangup(), hangup * 1000);
  }

  /** The reminder was spoken: only the hang-up clock keeps running. */
  warned(): void {
    if (this.idleWarnTimer) clearTimeout(this.idleWarnTimer);
    this.idleWarnTimer = null;
  }

  /** Someone is speaking: the idle clocks stop. */
  busy(): void {
    this.clearIdle();
  }

  /** The caller's turn ended: the answer must start within dead_air_seconds. */
  awaitingAnswer(): void {
    this.answerStarted();
    if (this.stopped || this.agent.deadAirSeconds === null) return;
    this.deadAirTimer = setTimeout(() => !this.stopped && this.actions.deadAir(), this.agent.deadAirSeconds * 1000);
  }

  answerStarted(): void {
    if (this.deadAirTimer) clearTimeout(this.deadAirTimer);
    this.deadAirTimer = null;
  }

  stop(): void {
    this.stopped = true;
    this.clearIdle();
    this.answerStarted();
    if (this.maxTimer) clearTimeout(this.maxTimer);
  }

  private clearIdle(): void {
    if (this.idleWarnTimer) clearTimeout(this.idleWarnTimer);
    if (this.idleHangupTimer) clearTimeout(this.idleHangupTimer);
    this.idleWarnTimer = this.idleHangupTimer = null;
  }
}
