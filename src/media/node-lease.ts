import type { AppContext } from '../shared/app-context.js';
import { NODE_LEASE_MS, NODE_LEASE_RENEW_MS, renewNodeLease } from '../sessions/lifecycle.js';

// This node's lease on its calls, in Postgres: while it holds, the worker's sweeper leaves the
// calls alone (it settles only calls whose lease ran out, checked under the settling row lock).
// Renewal talks to Postgres only, so no Redis outage can stop it. When Postgres cannot be
// reached long enough for a lease to run out, the sweeper may settle the call as soon as it
// reaches Postgres itself, so the node must not keep the call's audio flowing past that point:
// `lost` names the calls to end first.

/** A call is given up this long before its lease runs out (clocks of nodes and workers differ a little). */
export const LEASE_SAFETY_MS = 2_000;
/** After a failed renewal the next try comes this soon, so a short outage costs no lease. */
export const LEASE_RETRY_MS = 1_000;

interface Log {
  info: (o: object, m: string) => void;
  warn: (o: object, m: string) => void;
}

export class NodeLease {
  /** Per call: when its lease in Postgres runs out (ms), as last written by this node. */
  private readonly untilMs = new Map<string, number>();
  private renewing = false;
  private lastAttemptMs = Number.NEGATIVE_INFINITY;
  private lastFailed = false;
  private failingSinceMs: number | null = null;
  private lastError = '';

  constructor(
    private readonly ctx: AppContext,
    private readonly nodeId: string,
    private readonly log: Log,
    /** Calls Postgres no longer gives this node (settled meanwhile): their audio must stop. */
    private readonly onGone: (sessionIds: string[]) => void,
  ) {}

  /** A call activated on this node, with the lease its activation wrote. */
  add(sessionId: string, leaseUntilMs: number): void {
    this.untilMs.set(sessionId, leaseUntilMs);
  }

  /** Forgets every call not in `sessionIds` (ended and settled). */
  retain(sessionIds: ReadonlySet<string>): void {
    for (const id of this.untilMs.keys()) if (!sessionIds.has(id)) this.untilMs.delete(id);
  }

  /** Since when renewals fail, and the last error (null while they succeed). */
  get failing(): { sinceMs: number; error: string } | null {
    return this.failingSinceMs === null ? null : { sinceMs: this.failingSinceMs, error: this.lastError };
  }

  /**
   * Starts a renewal of `sessionIds` when one is due (every NODE_LEASE_RENEW_MS, or
   * LEASE_RETRY_MS after a failure) and none is in flight. Never throws.
   */
  renewIfDue(sessionIds: string[], nowMs: number): void {
    const interval = this.lastFailed ? LEASE_RETRY_MS : NODE_LEASE_RENEW_MS;
    if (this.renewing || sessionIds.length === 0 || nowMs - this.lastAttemptMs < interval) return;
    this.renewing = true;
    this.lastAttemptMs = nowMs;
    const leaseUntilMs = nowMs + NODE_LEASE_MS;
    renewNodeLease(this.ctx, this.nodeId, sessionIds)
      .then((renewed) => {
        const kept = new Set(renewed);
        for (const id of renewed) if (this.untilMs.has(id)) this.untilMs.set(id, leaseUntilMs);
        if (this.failingSinceMs !== null) this.log.info({ failed_for_ms: nowMs - this.failingSinceMs }, 'node lease renewed again');
        this.lastFailed = false;
        this.failingSinceMs = null;
        const gone = sessionIds.filter((id) => !kept.has(id));
        if (gone.length) this.onGone(gone);
      })
      .catch((err: unknown) => {
        this.lastError = err instanceof Error ? err.message : String(err);
        if (this.failingSinceMs === null) {
          this.failingSinceMs = nowMs;
          this.log.warn({ err: { message: this.lastError }, calls: sessionIds.length }, 'node lease renewal failed; retrying every second');
        }
        this.lastFailed = true;
      })
      .finally(() => {
        this.renewing = false;
      });
  }

  /** Calls whose lease runs out within LEASE_SAFETY_MS of `nowMs`: this node could not keep it. */
  lost(nowMs: number): string[] {
    const out: string[] = [];
    for (const [id, until] of this.untilMs) if (until - LEASE_SAFETY_MS <= nowMs) out.push(id);
    return out;
  }
}
