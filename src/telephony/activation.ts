import type { AppContext } from '../shared/app-context.js';
import type { CarrierCallRow } from '../db/repos/carrier-calls.js';
import { getSessionById, type SessionRow } from '../db/repos/voice-sessions.js';
import { connectRefusal } from '../sessions/connect-checks.js';
import { isDraining } from '../sessions/draining.js';
import { type Activation, CloseCode, NODE_LEASE_MS } from '../sessions/lifecycle.js';
import { endSession } from '../sessions/settlement.js';
import { safeEqual, sha256Hex } from '../shared/crypto/tokens.js';

// A carrier media stream's `start` turns into a running call here: activateSession's rules for
// the single-use token, with two differences. The session may already be `active` (a status
// callback reported ringing or answered before the stream came), and only phone sessions of the
// carrier account that opened the stream may be joined. media_connected_at is set now, at stream
// start, so connected_seconds is measured from the media stream.

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const refuse = (code: Extract<Activation, { ok: false }>['code'], reason: string): Activation => ({ ok: false, code, reason });

export interface StreamStart {
  sessionId: string;
  token: string;
  /** From the `start` message: the Twilio account and call the stream belongs to. */
  accountSid: string;
  callSid: string;
}

export async function activateCarrierStream(ctx: AppContext, start: StreamStart, nodeId: string): Promise<Activation> {
  if (isDraining(ctx)) return refuse(CloseCode.restarting, 'service restarting');
  if (!UUID.test(start.sessionId)) return refuse(CloseCode.unknownSession, 'unknown session');
  let expiredUnused = false;
  let pipelineDown = false;
  const result = await ctx.sql.begin(async (tx): Promise<Activation> => {
    const row = (await getSessionById(tx, start.sessionId, true)) as CarrierCallRow | undefined;
    if (!row) return refuse(CloseCode.unknownSession, 'unknown session');
    if (row.token_used_at) return refuse(CloseCode.badToken, 'token already used');
    const tokenOk = !!start.token && row.token_hash !== null && safeEqual(sha256Hex(start.token), row.token_hash);
    if (!tokenOk) return refuse(CloseCode.badToken, 'bad token');
    if (row.direction !== 'outbound' && row.direction !== 'inbound') return refuse(CloseCode.notConnectable, 'not a phone session');
    if (row.status === 'failed' && row.end_reason === 'not_connected') return refuse(CloseCode.expired, 'stream came too late');
    const connectable = row.settled_at === null && row.media_connected_at === null && (row.status === 'created' || row.status === 'active');
    if (!connectable) return refuse(CloseCode.notConnectable, 'session is not connectable');
    // The stream must come from the carrier account the session's call belongs to.
    const [carrier] = row.carrier_id
      ? await tx<{ account_sid: string }[]>`select account_sid from carriers where id = ${row.carrier_id} and deleted_at is null`
      : [];
    if (!carrier || carrier.account_sid !== start.accountSid) return refuse(CloseCode.notConnectable, 'stream from another carrier account');
    if (row.carrier_call_sid && row.carrier_call_sid !== start.callSid) return refuse(CloseCode.notConnectable, 'stream of another call');
    const now = ctx.clock.now();
    if (row.token_expires_at && now >= row.token_expires_at) {
      expiredUnused = row.status === 'created';
      return refuse(CloseCode.expired, 'stream came too late');
    }
    const refusal = await connectRefusal(ctx, tx, row, now);
    if (refusal) {
      pipelineDown = refusal.code === CloseCode.pipelineUnavailable;
      return refuse(refusal.code, refusal.reason);
    }
    const [active] = await tx<SessionRow[]>`
      update voice_sessions set status = 'active', token_used_at = ${now}, token_hash = null,
        started_at = coalesce(started_at, ${now}), media_connected_at = ${now}, node_id = ${nodeId},
        lease_expires_at = ${new Date(now.getTime() + NODE_LEASE_MS)}, heartbeat_at = ${now},
        carrier_call_sid = coalesce(carrier_call_sid, ${start.callSid})
      where id = ${row.id} and settled_at is null and media_connected_at is null and token_used_at is null returning *`;
    if (!active) return refuse(CloseCode.badToken, 'token already used');
    return { ok: true, session: active };
  });
  if (expiredUnused) await endSession(ctx, start.sessionId, { outcome: 'failed', endReason: 'not_connected' });
  // The pipeline cannot start (contract §5: → failed): hold and slot go back now.
  if (pipelineDown) await endSession(ctx, start.sessionId, { outcome: 'failed', endReason: 'provider_error' });
  return result;
}
