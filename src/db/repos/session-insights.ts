import type { CallInsightsInfo } from '../../contract/voice-sessions.js';
import type { Db } from '../../shared/sql.js';

// Insights bookkeeping on voice_sessions: `insights_pending_since` (0007) marks a session whose
// analysis is due; `insights` (0004) holds the CallInsightsInfo. Storing clears the mark, and
// only a pending session is written, so a job that runs twice stores once.

export interface PendingInsights {
  id: string;
  pending_since: Date;
  transcript_stored: boolean;
  pipeline_snapshot: Record<string, Record<string, unknown> | undefined>;
}

export interface SessionForInsights {
  id: string;
  agent_id: string | null;
  agent_version: number | null;
  pipeline_snapshot: Record<string, Record<string, unknown> | undefined>;
  insights_pending_since: Date | null;
}

export async function getSessionForInsights(db: Db, sessionId: string): Promise<SessionForInsights | undefined> {
  const [row] = await db<SessionForInsights[]>`
    select id, agent_id, agent_version, pipeline_snapshot, insights_pending_since from voice_sessions where id = ${sessionId}`;
  return row;
}

/** Stores the result and clears the mark; false when the session was not (or no longer) pending. */
export async function storeInsights(db: Db, sessionId: string, info: CallInsightsInfo): Promise<boolean> {
  const result = await db`
    update voice_sessions set insights = ${db.json(info)}, insights_pending_since = null
    where id = ${sessionId} and insights_pending_since is not null`;
  return result.count === 1;
}

/** Clears the mark without a result (the agent version asks for no insights after all). */
export async function clearInsightsPending(db: Db, sessionId: string): Promise<void> {
  await db`update voice_sessions set insights_pending_since = null where id = ${sessionId}`;
}

/** Sessions pending since `before` or earlier, oldest first. */
export async function listPendingInsights(db: Db, before: Date, limit: number): Promise<PendingInsights[]> {
  return db<PendingInsights[]>`
    select v.id, v.insights_pending_since as pending_since, v.pipeline_snapshot,
           exists (select 1 from session_transcripts t where t.session_id = v.id) as transcript_stored
    from voice_sessions v
    where v.insights_pending_since is not null and v.insights_pending_since <= ${before}
    order by v.insights_pending_since limit ${limit}`;
}
