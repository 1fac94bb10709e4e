import type { AppContext } from '../shared/app-context.js';
import { getVersionCallSettings, type VersionCallSettings } from '../db/repos/agent-versions.js';
import { insertTranscript } from '../db/repos/session-transcripts.js';
import { getSessionById, settleSessionRow, toSessionInfo, type SessionInfo, type SessionRow } from '../db/repos/voice-sessions.js';
import { releaseAndCharge } from '../db/repos/wallet.js';
import { kickInsights } from '../insights/queue.js';
import { normalizeTranscript, retentionDays, transcriptExpiry } from '../transcripts/store.js';
import { emitCallEvent, kickDeliveries, type EmittedEvent } from '../webhooks/index.js';
import { type TranscriptEntry } from '../contract/events.js';
import { costFor, secondsBetweenRoundedUp } from '../contract/money.js';
import { releaseKeySlot, releaseSlot } from './slots.js';
import { emitTransferred, settledHandOver } from './transfer-settlement.js';
import type { Tx } from '../shared/sql.js';

export type EndReason =
  | 'caller_hangup' | 'agent_hangup' | 'max_duration' | 'idle_timeout' | 'not_connected' | 'busy' | 'no_answer'
  | 'carrier_error' | 'provider_error' | 'service_error' | 'service_restart' | 'transferred' | 'voicemail';

export interface EndSignal {
  /** Only meaningful for an active call: `completed` normally, `failed` for provider/service failures. */
  outcome: 'completed' | 'failed';
  endReason: EndReason;
  /** When the media stopped; defaults to now. Crash recovery passes the node's last heartbeat. */
  disconnectedAt?: Date;
  /** What was said, ms relative to media connect. Stored when store_transcript; feeds insights. */
  transcript?: TranscriptEntry[];
  /**
   * Settle only if this still holds under the row lock (sweepers): `lease_lapsed`, the call is
   * active and its node's lease has run out (a node that renewed meanwhile keeps its call);
   * `token_expired`, the session is still created and its token window closed.
   */
  onlyIf?: 'lease_lapsed' | 'token_expired';
}

function conditionHolds(row: SessionRow, onlyIf: EndSignal['onlyIf'], now: Date): boolean {
  if (onlyIf === 'lease_lapsed') return row.status === 'active' && row.lease_expires_at !== null && row.lease_expires_at <= now;
  if (onlyIf === 'token_expired') return row.status === 'created' && row.token_expires_at !== null && row.token_expires_at <= now;
  return true;
}

export interface EndResult {
  session: SessionInfo;
  /** False when the session had already been settled (a duplicate end signal). */
  settledNow: boolean;
}

const NO_SETTINGS: VersionCallSettings = { retention_days: null, insight_config: null };

/** What the agent version the session ran says about its transcript and insights. */
async function versionSettings(tx: Tx, row: SessionRow): Promise<VersionCallSettings> {
  if (!row.agent_id || row.agent_version === null) return NO_SETTINGS;
  return (await getVersionCallSettings(tx, row.agent_id, row.agent_version)) ?? NO_SETTINGS;
}

/**
 * Ends a session and settles it, exactly once: the session row is locked, a settled session
 * (or one whose `onlyIf` no longer holds) is returned untouched, and the ledger's unique
 * (session_id, kind) backs that up. A session that never became active always ends `failed`
 * with nothing charged.
 *
 * In the same transaction: the transcript is stored when the session's store_transcript is
 * on (expiring after the agent version's retention_days, capped by TRANSCRIPT_RETENTION_DAYS),
 * and insights are marked pending when the agent version has an insight_config; the analysis
 * is queued after the commit (the transcript rides in the job only when it was not stored).
 */
export async function endSession(ctx: AppContext, sessionId: string, signal: EndSignal): Promise<EndResult | null> {
  const result = await ctx.sql.begin(async (tx) => {
    const row = await getSessionById(tx, sessionId, true);
    if (!row) return null;
    const untouched = { row, settledNow: false, emitted: null as EmittedEvent | null, transferred: null as EmittedEvent | null, insights: null as { transcript: TranscriptEntry[] | null } | null };
    if (row.settled_at) return untouched;
    const now = ctx.clock.now();
    if (!conditionHolds(row, signal.onlyIf, now)) return untouched;
    const wasActive = row.status === 'active' && row.media_connected_at !== null;
    // A call handed to a person ends there, however its media then stopped (transfer-settlement.ts).
    const handOver = settledHandOver(row);
    if (handOver) signal = { ...signal, outcome: 'completed', endReason: 'transferred', disconnectedAt: handOver.at };
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
    const transcript = normalizeTranscript(signal.transcript);
    const version = await versionSettings(tx, row);
    const insightsDue = version.insight_config !== null && transcript.length > 0;
    const updated = await settleSessionRow(tx, sessionId, {
      status,
      endReason: signal.endReason,
      endedAt: now,
      mediaDisconnectedAt: disconnectedAt,
      connectedSeconds,
      costNanoUsd: cost,
      insightsPendingSince: insightsDue ? now : null,
    });
    await releaseAndCharge(tx, row.project_id, sessionId, row.hold_nano_usd, cost, now);
    const stored = updated.store_transcript && transcript.length > 0;
    if (stored) {
      const days = retentionDays(version.retention_days, ctx.config.TRANSCRIPT_RETENTION_DAYS);
      await insertTranscript(tx, sessionId, transcript, transcriptExpiry(now, days));
    }
    // The call event is an outbox row of this same transaction: settled ⇔ event recorded.
    const emitted = await emitCallEvent(tx, ctx, {
      projectId: row.project_id,
      agentId: row.agent_id,
      type: status === 'completed' ? 'call.completed' : 'call.failed',
      session: toSessionInfo(updated),
      transcript,
    });
    const transferred = handOver ? await emitTransferred(tx, ctx, row, toSessionInfo(updated), handOver) : null;
    const insights = insightsDue ? { transcript: stored ? null : transcript } : null;
    return { row: updated, settledNow: true, emitted, transferred, insights };
  });
  if (!result) return null;
  if (result.settledNow) {
    if (result.emitted) await kickDeliveries(ctx, result.emitted);
    if (result.transferred) await kickDeliveries(ctx, result.transferred);
    if (result.insights) await kickInsights(ctx, sessionId, result.insights.transcript);
    await releaseSlot(ctx, result.row.project_id, sessionId).catch((err) =>
      ctx.log.warn({ err, session_id: sessionId }, 'slot release failed; its lease will expire'),
    );
    const keyId = result.row.publishable_key_id;
    if (keyId) {
      await releaseKeySlot(ctx, keyId, sessionId).catch((err) =>
        ctx.log.warn({ err, session_id: sessionId }, "publishable key's slot release failed; its lease will expire"),
      );
    }
  }
  return { session: toSessionInfo(result.row), settledNow: result.settledNow };
}
