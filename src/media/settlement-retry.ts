import type { AppContext } from '../shared/app-context.js';
import { endSession, type EndSignal } from '../sessions/settlement.js';

// Settles the calls that ended on this node. A settlement that fails (Postgres down or
// restarting) is tried again with backoff until it lands: the call keeps the outcome, end reason
// and disconnect time it ended with, so it is billed for the seconds it was really connected.
// Meanwhile the node keeps renewing the call's lease (`pendingIds`), so the sweeper does not
// settle it as a service failure first. endSession is idempotent under the row lock, so a retry
// after a commit whose answer was lost changes nothing: every call is settled exactly once.

export const SETTLE_RETRY_FIRST_MS = 250;
export const SETTLE_RETRY_MAX_MS = 5_000;
/** After this long the node stops trying (and stops renewing the lease): the sweeper settles the call. */
export const SETTLE_GIVE_UP_MS = 10 * 60_000;

interface Log {
  info: (o: object, m: string) => void;
  warn: (o: object, m: string) => void;
  error: (o: object, m: string) => void;
}

export class SettlementRetry {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly unsettled = new Set<string>();
  private readonly sleepers = new Set<() => void>();
  private stopped = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Log,
  ) {}

  /** Settles the session now, and again after failures until it lands (or `stop`). */
  settle(sessionId: string, signal: EndSignal): void {
    const p = this.run(sessionId, signal).finally(() => this.inFlight.delete(p));
    this.inFlight.add(p);
  }

  /** Ended calls whose settlement has not landed yet: their node lease is still renewed. */
  get pendingIds(): string[] {
    return [...this.unsettled];
  }

  /** Resolves once no settlement is in flight or waiting to be retried. */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  /** Stops retrying (the sweeper settles what is left once the lease runs out). */
  stop(): void {
    this.stopped = true;
    for (const wake of this.sleepers) wake();
  }

  private async run(sessionId: string, signal: EndSignal): Promise<void> {
    const startedMs = Date.now();
    let delayMs = SETTLE_RETRY_FIRST_MS;
    let failures = 0;
    this.unsettled.add(sessionId);
    try {
      for (;;) {
        try {
          await endSession(this.ctx, sessionId, signal);
          if (failures) this.log.info({ session_id: sessionId, failures }, 'settlement landed after retries');
          return;
        } catch (err) {
          failures++;
          const message = err instanceof Error ? err.message : String(err);
          if (this.stopped || Date.now() - startedMs > SETTLE_GIVE_UP_MS) {
            this.log.error({ err: { message }, session_id: sessionId, failures }, 'settlement failed; the sweeper will settle it once the lease runs out');
            return;
          }
          if (failures === 1) this.log.warn({ err: { message }, session_id: sessionId }, 'settlement failed; retrying until the database answers');
          await this.sleep(delayMs);
          delayMs = Math.min(2 * delayMs, SETTLE_RETRY_MAX_MS);
        }
      }
    } finally {
      this.unsettled.delete(sessionId);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        this.sleepers.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, ms);
      this.sleepers.add(wake);
    });
  }
}
