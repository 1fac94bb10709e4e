import type { AppContext } from '../shared/app-context.js';
import type { Tx } from '../shared/sql.js';
import { getSessionById, markMediaConnected, renewNodeLeases, type SessionRow } from '../db/repos/voice-sessions.js';
import { safeEqual, sha256Hex } from '../shared/crypto/tokens.js';
import { connectRefusal, reserveConnectSlot } from './connect-checks.js';
import { releaseSlot } from './slots.js';
import { isDraining } from './draining.js';
import { endSession, type EndReason } from './settlement.js';

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
export type Refusal = Extract<Activation, { ok: false }>;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const refuse = (code: RefusalCode, reason: string): Refusal => ({ ok: false, code, reason });

/** What one door (browser socket, carrier stream) adds to the activation rules every door shares. */
export interface ActivationChecks {
  /** The door's own refusals, checked under the row lock once the token is proven right and unused. */
  refusal(tx: Tx, row: SessionRow): Promise<Refusal | null>;
  /** Why a session whose token window is over cannot be joined. */
  lateReason: string;
  /** The carrier's CallSid, recorded on a session that has none yet. */
  callSid?: string;
}

/**
 * Validates the single-use token and connects the session's media, atomically: the row is
 * locked and the token is marked used in the same statement that activates the call, so of two
 * racing connects exactly one wins and the other gets 4401. The door's checks run between the
 * token and the rules every call must pass (token window, agent, providers, concurrency slot).
 */
export async function activate(ctx: AppContext, sessionId: string, token: string, nodeId: string, checks: ActivationChecks): Promise<Activation> {
  if (isDraining(ctx)) return refuse(CloseCode.restarting, 'service restarting');
  if (!UUID.test(sessionId)) return refuse(CloseCode.unknownSession, 'unknown session');
  const slot = await reserveConnectSlot(ctx, sessionId, token, ctx.clock.now());
  const after: { end?: EndReason } = {};
  const result = await ctx.sql.begin(async (tx): Promise<Activation> => {
    const row = await getSessionById(tx, sessionId, true);
    if (!row) return refuse(CloseCode.unknownSession, 'unknown session');
    if (row.token_used_at) return refuse(CloseCode.badToken, 'token already used');
    const tokenOk = !!token && row.token_hash !== null && safeEqual(sha256Hex(token), row.token_hash);
    if (!tokenOk) return refuse(CloseCode.badToken, 'bad token');
    // Admission sent the call to one node (its load counts it there); another may not take it. The token stays unused.
    if (row.media_node_id && row.media_node_id !== nodeId) return refuse(CloseCode.notConnectable, 'session belongs to another media node');
    const doorRefusal = await checks.refusal(tx, row);
    if (doorRefusal) return doorRefusal;
    const now = ctx.clock.now();
    if (row.token_expires_at && now >= row.token_expires_at) {
      if (row.status === 'created') after.end = 'not_connected';
      return refuse(CloseCode.expired, checks.lateReason);
    }
    const refusal = await connectRefusal(tx, row, slot);
    if (refusal) {
      // The pipeline cannot start (contract §5: → failed): hold and slot go back now.
      if (refusal.code === CloseCode.pipelineUnavailable) after.end = 'provider_error';
      return refuse(refusal.code, refusal.reason);
    }
    const leaseExpiresAt = new Date(now.getTime() + NODE_LEASE_MS);
    const active = await markMediaConnected(tx, row.id, { now, nodeId, leaseExpiresAt, callSid: checks.callSid ?? null });
    if (!active) return refuse(CloseCode.badToken, 'token already used');
    return { ok: true, session: active };
  });
  if (after.end) await endSession(ctx, sessionId, { outcome: 'failed', endReason: after.end });
  else if (!result.ok && slot.kind === 'added') await releaseSlot(ctx, slot.projectId, sessionId).catch(() => {});
  return result;
}

const BROWSER_CHECKS: ActivationChecks = {
  // The token is right but unused: say why the session cannot be joined.
  refusal: async (_tx, row) => {
    if (row.status === 'failed' && row.end_reason === 'not_connected') return refuse(CloseCode.expired, 'ws_url expired');
    if (row.status !== 'created') return refuse(CloseCode.notConnectable, 'session is not connectable');
    return null;
  },
  lateReason: 'ws_url expired',
};

/** The browser socket's door: a created web or API session joined with its ws_url token. */
export async function activateSession(ctx: AppContext, sessionId: string, token: string, nodeId: string): Promise<Activation> {
  return activate(ctx, sessionId, token, nodeId, BROWSER_CHECKS);
}

/**
 * Renews this node's lease on the calls it is running (one statement for all of them) and
 * returns the ids renewed: one missing was settled meanwhile, and its audio must stop. The node
 * also renews calls that ended but whose settlement has not landed yet (database down), so the
 * sweeper leaves their settlement to the node, which knows how they ended.
 */
export async function renewNodeLease(ctx: AppContext, nodeId: string, sessionIds: string[]): Promise<string[]> {
  if (sessionIds.length === 0) return [];
  const now = ctx.clock.now();
  return renewNodeLeases(ctx.sql, nodeId, sessionIds, now, new Date(now.getTime() + NODE_LEASE_MS));
}
