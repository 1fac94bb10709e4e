import type { AppContext } from '../shared/app-context.js';
import { listExpiredCreatedSessions, listLapsedActiveSessions } from '../db/repos/voice-sessions.js';
import { endSession } from './settlement.js';
import { runPeriodically } from '../shared/periodic.js';

// Sweepers settle what nobody else will:
// - a created session whose ws_url expired unused → failed / not_connected (hold and slot freed);
// - an active session whose media node stopped renewing its lease (the node died) → failed /
//   service_error (contract §5: a service failure mid-call), billed up to the node's last
//   heartbeat, the last moment the call is known to have been up. The lease is read again under
//   the settling row lock, so a call whose node renewed late is left alone; a node that cannot
//   renew ends its own calls before its lease runs out (media/node-lease.ts), so no call is
//   settled here while its audio still flows.
// Settlement is keyed by session id and idempotent, so several workers may sweep at once.

export const SWEEP_INTERVAL_MS = 5_000;
const BATCH = 200;

export interface SweepResult {
  expired: number;
  orphaned: number;
}

export async function sweepOnce(ctx: AppContext): Promise<SweepResult> {
  const now = ctx.clock.now();
  const expired = await listExpiredCreatedSessions(ctx.sql, now, BATCH);
  let expiredNow = 0;
  for (const { id } of expired) {
    const r = await endSession(ctx, id, { outcome: 'failed', endReason: 'not_connected', onlyIf: 'token_expired' });
    if (r?.settledNow) expiredNow++;
  }

  // The lease is checked again under the row lock: a node that renewed since the list was read
  // is alive, and its call is not ours to end.
  const lapsed = await listLapsedActiveSessions(ctx.sql, now, BATCH);
  let orphaned = 0;
  for (const { id, heartbeat_at } of lapsed) {
    const r = await endSession(ctx, id, { outcome: 'failed', endReason: 'service_error', disconnectedAt: heartbeat_at ?? undefined, onlyIf: 'lease_lapsed' });
    if (r?.settledNow) orphaned++;
  }
  return { expired: expiredNow, orphaned };
}

/** Started by the worker role (a first sweep at once, then every interval); returns its stop function. */
export function startSessionSweepers(ctx: AppContext, intervalMs = SWEEP_INTERVAL_MS): () => Promise<void> {
  return runPeriodically(
    async () => {
      const r = await sweepOnce(ctx);
      if (r.expired || r.orphaned) ctx.log.info(r, 'sessions swept');
    },
    intervalMs,
    (err) => ctx.log.error({ err }, 'session sweep failed'),
    { unref: true },
  );
}
