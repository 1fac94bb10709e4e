import type { AppContext } from '../shared/app-context.js';
import { findAgentRow } from '../db/repos/agents.js';
import { getProjectCallLimits } from '../db/repos/projects.js';
import { findProviderAccounts } from '../db/repos/provider-accounts.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { Tx } from '../shared/sql.js';
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
  const agent = row.agent_id ? await findAgentRow(tx, row.project_id, row.agent_id) : undefined;
  if (!agent || !agent.is_active) return { code: 4409, reason: 'agent is not active' };
  const snapshot = row.pipeline_snapshot as Record<string, { account_id: string }>;
  const accounts = await findProviderAccounts(tx, row.project_id, stageAccountIds(snapshot));
  if (!stagesVerified(snapshot, accounts)) return { code: 4453, reason: 'provider pipeline unavailable' };
  const project = await getProjectCallLimits(tx, row.project_id);
  const slot = await takeSlot(ctx, row.project_id, row.id, project.max_concurrent_sessions, now.getTime() + ACTIVE_SLOT_LEASE_MS);
  if (!slot.taken) return { code: 4429, reason: 'concurrency limit reached' };
  return null;
}
