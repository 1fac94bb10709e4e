import type { AppContext } from '../shared/app-context.js';
import { findAgentRow } from '../db/repos/agents.js';
import { getProjectCallLimits } from '../db/repos/projects.js';
import { findProviderAccounts } from '../db/repos/provider-accounts.js';
import { getSessionById, type SessionRow } from '../db/repos/voice-sessions.js';
import { safeEqual, sha256Hex } from '../shared/crypto/tokens.js';
import type { Tx } from '../shared/sql.js';
import { stageAccountIds, stagesVerified } from './admission.js';
import { ACTIVE_SLOT_LEASE_MS, takeSlot } from './slots.js';

export interface ConnectRefusal {
  code: 4409 | 4429 | 4453;
  reason: string;
}

/**
 * The concurrency slot of a connecting call, settled before the activating transaction (no
 * Redis call inside it): `held` (the admission's slot still stands), `added` (it had lapsed and
 * was taken again; given back if activation then refuses), `full` (lapsed, and the project is at
 * its limit: 4429), `unknown` (Redis unavailable: the call connects, it was counted at
 * admission; the media node's renewal takes the slot again), `skipped` (wrong token or not
 * connectable: the transaction refuses it without touching slots).
 */
export type ConnectSlot = { kind: 'held' | 'added'; projectId: string } | { kind: 'full' | 'unknown' | 'skipped' };

export async function reserveConnectSlot(ctx: AppContext, sessionId: string, token: string, now: Date): Promise<ConnectSlot> {
  const row = await getSessionById(ctx.sql, sessionId);
  const tokenOk = !!row && !!token && row.token_hash !== null && safeEqual(sha256Hex(token), row.token_hash);
  if (!row || !tokenOk || row.settled_at || row.token_used_at || (row.status !== 'created' && row.status !== 'active')) return { kind: 'skipped' };
  if (row.token_expires_at && now >= row.token_expires_at) return { kind: 'skipped' };
  const project = await getProjectCallLimits(ctx.sql, row.project_id);
  try {
    const slot = await takeSlot(ctx, row.project_id, row.id, project.max_concurrent_sessions, now.getTime() + ACTIVE_SLOT_LEASE_MS);
    if (!slot.taken) return { kind: 'full' };
    return { kind: slot.added ? 'added' : 'held', projectId: row.project_id };
  } catch {
    ctx.log.warn({ session_id: row.id }, 'connecting without a slot check: concurrency slots unavailable');
    return { kind: 'unknown' };
  }
}

/**
 * What may still stop a valid token's media from connecting, checked inside the activating
 * transaction (browser socket and carrier stream alike): the agent must still be active, its
 * providers verified (4453: the session then fails at once), and a concurrency slot held —
 * the one taken at admission normally still stands; if its lease lapsed, one was taken again
 * before the transaction (`reserveConnectSlot`).
 */
export async function connectRefusal(tx: Tx, row: SessionRow, slot: ConnectSlot): Promise<ConnectRefusal | null> {
  const agent = row.agent_id ? await findAgentRow(tx, row.project_id, row.agent_id) : undefined;
  if (!agent || !agent.is_active) return { code: 4409, reason: 'agent is not active' };
  const snapshot = row.pipeline_snapshot as Record<string, { account_id: string }>;
  const accounts = await findProviderAccounts(tx, row.project_id, stageAccountIds(snapshot));
  if (!stagesVerified(snapshot, accounts)) return { code: 4453, reason: 'provider pipeline unavailable' };
  if (slot.kind === 'full') return { code: 4429, reason: 'concurrency limit reached' };
  return null;
}
