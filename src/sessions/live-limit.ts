import { countLiveSessions } from '../db/repos/voice-sessions.js';
import type { Tx } from '../shared/sql.js';

/**
 * Whether the session this transaction just inserted fits the project's max_concurrent_sessions:
 * admission's check in Postgres, under the wallet row lock (so admissions of a project decide
 * one at a time, each seeing the ones committed before it), whatever Redis lost.
 *
 * `unsettledBefore` is the wallet row's counter of the project's unsettled sessions before this
 * insert, kept by triggers (migration 0020) in the same transactions as the inserts and
 * settlements. Every live session is unsettled, so a counter below the limit proves room at no
 * cost; at or above it, created sessions whose token window closed may still await the sweeper,
 * and the exact count of live sessions (a scan of the project's unsettled rows, which now
 * includes the new one) decides.
 */
export async function roomForOneMore(tx: Tx, projectId: string, unsettledBefore: number, max: number, now: Date): Promise<boolean> {
  if (unsettledBefore < max) return true;
  return (await countLiveSessions(tx, projectId, now)) <= max;
}
