import type { AppContext } from '../shared/app-context.js';
import { loadAgentRow, loadStageAccounts, type SessionRow, type Tx } from '../db/repos/voice-sessions.js';
import { stageAccountIds, stagesVerified } from './admission.js';
import { ACTIVE_SLOT_LEASE_MS, takeSlot } from './slots.js';

export interface ConnectRefusal {
  code: 4409 | 4429 | 4453;
  reason: string;
}

/**
 * What may still stop a valid token's media from connecting, checked inside the activating
 * transaction (browser socket and carrier stream alike): the agent must still be active, its
 * providers verified (4453: the session then fails at once), and a concurrency slot held —
 * the one taken at admission normally still stands; if its lease lapsed, one is taken again.
 */
export async function connectRefusal(ctx: AppContext, tx: Tx, row: SessionRow, now: Date): Promise<ConnectRefusal | null> {
  const agent = row.agent_id ? await loadAgentRow(tx, row.project_id, row.agent_id) : undefined;
  if (!agent || !agent.is_active) return { code: 4409, reason: 'agent is not active' };
  const snapshot = row.pipeline_snapshot as Record<string, { account_id: string }>;
  const accounts = await loadStageAccounts(tx, row.project_id, stageAccountIds(snapshot));
  if (!stagesVerified({ pipeline_config: snapshot }, accounts)) return { code: 4453, reason: 'provider pipeline unavailable' };
  const [project] = await tx<{ max_concurrent_sessions: number }[]>`select max_concurrent_sessions from projects where id = ${row.project_id}`;
  const slot = await takeSlot(ctx, row.project_id, row.id, project.max_concurrent_sessions, now.getTime() + ACTIVE_SLOT_LEASE_MS);
  if (!slot.taken) return { code: 4429, reason: 'concurrency limit reached' };
  return null;
}
