import type { AppContext } from '../app-context.js';
import { getSessionById, toSessionInfo, type SessionInfo, type SessionRow } from '../db/repos/voice-sessions.js';
import { releaseAndCharge } from '../db/repos/wallet.js';
import { emitCallEvent, kickDeliveries, type EmittedEvent } from '../webhooks/index.js';
import { costFor, secondsBetweenRoundedUp } from './money.js';
import { releaseSlot } from './slots.js';

export type EndReason =
  | 'caller_hangup' | 'agent_hangup' | 'max_duration' | 'idle_timeout' | 'not_connected' | 'busy' | 'no_answer'
  | 'carrier_error' | 'provider_error' | 'service_error' | 'service_restart';

export interface EndSignal {
  /** Only meaningful for an active call: `completed` normally, `failed` for provider/service failures. */
  outcome: 'completed' | 'failed';
  endReason: EndReason;
  /** When the media stopped; defaults to now. Crash recovery passes the node's last heartbeat. */
  disconnectedAt?: Date;
}

export interface EndResult {
  session: SessionInfo;
  /** False when the session had already been settled (a duplicate end signal). */
  settledNow: boolean;
}

/**
 * Ends a session and settles it, exactly once: the session row is locked, a settled session
 * is returned untouched, and the ledger's unique (session_id, kind) backs that up. A session
 * that never became active always ends `failed` with nothing charged.
 */
export async function endSession(ctx: AppContext, sessionId: string, signal: EndSignal): Promise<EndResult | null> {
  const result = await ctx.sql.begin(async (tx) => {
    const row = await getSessionById(tx, sessionId, true);
    if (!row) return null;
    if (row.settled_at) return { row, settledNow: false, emitted: null as EmittedEvent | null };
    const now = ctx.clock.now();
    const wasActive = row.status === 'active' && row.media_connected_at !== null;
    let disconnectedAt: Date | null = null;
    let connectedSeconds = 0;
    if (wasActive) {
      disconnectedAt = signal.disconnectedAt ?? now;
      if (disconnectedAt < row.media_connected_at!) disconnectedAt = row.media_connected_at!;
      // The call is cut at max_duration; enforcement latency is not billed beyond the hold.
      connectedSeconds = Math.min(secondsBetweenRoundedUp(row.media_connected_at!, disconnectedAt), row.max_duration_seconds);
    }
    const cost = costFor(connectedSeconds, row.rate_nano_usd_per_min);
    const status = wasActive ? signal.outcome : 'failed';
    const [updated] = await tx<SessionRow[]>`
      update voice_sessions set
        status = ${status}, ended_at = ${now}, end_reason = ${signal.endReason},
        media_disconnected_at = ${disconnectedAt}, connected_seconds = ${connectedSeconds},
        cost_nano_usd = ${cost.toString()}, settled_at = ${now}, lease_expires_at = null
      where id = ${sessionId} returning *`;
    await releaseAndCharge(tx, row.project_id, sessionId, row.hold_nano_usd, cost, now);
    // The call event is an outbox row of this same transaction: settled ⇔ event recorded.
    const emitted = await emitCallEvent(tx, ctx, {
      projectId: row.project_id,
      agentId: row.agent_id,
      type: status === 'completed' ? 'call.completed' : 'call.failed',
      session: toSessionInfo(updated),
    });
    return { row: updated, settledNow: true, emitted };
  });
  if (!result) return null;
  if (result.settledNow) {
    if (result.emitted) await kickDeliveries(ctx, result.emitted);
    await releaseSlot(ctx, result.row.project_id, sessionId).catch((err) =>
      ctx.log.warn({ err, session_id: sessionId }, 'slot release failed; its lease will expire'),
    );
  }
  return { session: toSessionInfo(result.row), settledNow: result.settledNow };
}
