import type { AppContext } from '../shared/app-context.js';
import { getSessionById, type SessionRow } from '../db/repos/voice-sessions.js';
import { safeEqual, sha256Hex } from '../shared/crypto/tokens.js';
import { connectRefusal } from './connect-checks.js';
import { isDraining } from './draining.js';
import { endSession } from './settlement.js';

/** Media-socket refusals (spec 4.7). */
export const CloseCode = {
  normal: 1000,
  tooBig: 1009,
  restarting: 1013,
  badToken: 4401,
  unknownSession: 4404,
  expired: 4408,
  notConnectable: 4409,
  concurrency: 4429,
  pipelineUnavailable: 4453,
} as const;
export type RefusalCode = (typeof CloseCode)[keyof typeof CloseCode];

/** A media node's lease on its active calls; renewed every `NODE_LEASE_RENEW_MS`. */
export const NODE_LEASE_MS = 30_000;
export const NODE_LEASE_RENEW_MS = 10_000;

export type Activation = { ok: true; session: SessionRow } | { ok: false; code: RefusalCode; reason: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const refuse = (code: RefusalCode, reason: string): Activation => ({ ok: false, code, reason });

/**
 * Validates the single-use token and moves the session created → active, atomically: the row
 * is locked and the token is marked used in the same statement that activates the call, so
 * of two racing connects exactly one wins and the other gets 4401.
 */
export async function activateSession(ctx: AppContext, sessionId: string, token: string, nodeId: string): Promise<Activation> {
  if (isDraining(ctx)) return refuse(CloseCode.restarting, 'service restarting');
  if (!UUID.test(sessionId)) return refuse(CloseCode.unknownSession, 'unknown session');
  let expiredUnused = false;
  let pipelineDown = false;
  const result = await ctx.sql.begin(async (tx): Promise<Activation> => {
    const row = await getSessionById(tx, sessionId, true);
    if (!row) return refuse(CloseCode.unknownSession, 'unknown session');
    if (row.token_used_at) return refuse(CloseCode.badToken, 'token already used');
    const tokenOk = !!token && row.token_hash !== null && safeEqual(sha256Hex(token), row.token_hash);
    if (!tokenOk) return refuse(CloseCode.badToken, 'bad token');
    // The token is right but unused: say why the session cannot be joined.
    if (row.status === 'failed' && row.end_reason === 'not_connected') return refuse(CloseCode.expired, 'ws_url expired');
    const now = ctx.clock.now();
    if (row.status !== 'created') return refuse(CloseCode.notConnectable, 'session is not connectable');
    if (row.token_expires_at && now >= row.token_expires_at) {
      expiredUnused = true;
      return refuse(CloseCode.expired, 'ws_url expired');
    }
    const refusal = await connectRefusal(ctx, tx, row, now);
    if (refusal) {
      pipelineDown = refusal.code === CloseCode.pipelineUnavailable;
      return refuse(refusal.code, refusal.reason);
    }
    const [active] = await tx<SessionRow[]>`
      update voice_sessions set status = 'active', token_used_at = ${now}, token_hash = null,
        started_at = ${now}, media_connected_at = ${now}, node_id = ${nodeId},
        lease_expires_at = ${new Date(now.getTime() + NODE_LEASE_MS)}, heartbeat_at = ${now}
      where id = ${sessionId} and status = 'created' and token_used_at is null returning *`;
    if (!active) return refuse(CloseCode.badToken, 'token already used');
    return { ok: true, session: active };
  });
  if (expiredUnused) await endSession(ctx, sessionId, { outcome: 'failed', endReason: 'not_connected' });
  // The pipeline cannot start (contract §5: created → failed): free the hold and slot now.
  if (pipelineDown) await endSession(ctx, sessionId, { outcome: 'failed', endReason: 'provider_error' });
  return result;
}

/**
 * Renews this node's lease on the calls it is running (one statement for all of them). Only
 * the calls still live in memory are renewed: a call whose own settlement failed lets its
 * lease lapse, and the sweeper settles it.
 */
export async function renewNodeLease(ctx: AppContext, nodeId: string, sessionIds: string[]): Promise<void> {
  if (sessionIds.length === 0) return;
  const now = ctx.clock.now();
  await ctx.sql`update voice_sessions set lease_expires_at = ${new Date(now.getTime() + NODE_LEASE_MS)}, heartbeat_at = ${now}
    where node_id = ${nodeId} and status = 'active' and id = any(${sessionIds}::uuid[])`;
}
