import type { AppContext } from '../shared/app-context.js';
import type { CreateOutboundVoiceSessionBody } from '../contract/voice-sessions.js';
import { setCallParties } from '../db/repos/carrier-calls.js';
import { findProjectNumber } from '../db/repos/carrier-numbers.js';
import { toSessionInfo, type SessionInfo, type SessionRow } from '../db/repos/voice-sessions.js';
import type { Tx } from '../shared/sql.js';
import { admitCall } from '../sessions/admission.js';
import { carrierErrors, fieldError } from '../shared/errors.js';
import { kickDial } from './dial-queue.js';
import { OUTBOUND_TOKEN_TTL_SECONDS } from './timing.js';

// POST /v2/voice/sessions/outbound (and its console twin): the same admission as a media session
// (agent, variables, providers, wallet hold, concurrency slot), plus the caller's `from` number and
// its carrier. The session is created with no media token; the dial job makes one when it places
// the call. 202: the call is queued, not placed. Idempotency-Key is the route's (control/idempotency.ts):
// a replay answers the first body with `duplicate: true`.

export interface OutboundAdmitted {
  session: SessionInfo;
  duplicate: boolean;
}

/** Carrier sessions run at the phone network's rate both ways: no resampling anywhere. */
export const PHONE_SAMPLE_RATE_HZ = 8000;

/** Campaigns: `finish` runs last inside the admission transaction (it records the campaign row's attempt). */
export interface OutboundHooks {
  finish?: (tx: Tx, session: SessionRow) => Promise<void>;
}

export async function admitOutbound(ctx: AppContext, projectId: string, body: CreateOutboundVoiceSessionBody, hooks: OutboundHooks = {}): Promise<OutboundAdmitted> {
  let carrierId = '';
  const { row } = await admitCall(ctx, projectId, {
    direction: 'outbound',
    agent_id: body.agent_id,
    max_duration_seconds: body.max_duration_seconds,
    metadata: body.metadata,
    record: body.record,
    store_transcript: body.store_transcript,
    variables: body.variables,
    sample_rate_in: PHONE_SAMPLE_RATE_HZ,
    sample_rate_out: PHONE_SAMPLE_RATE_HZ,
    encoding: 'pcm16',
    tokenTtlSeconds: OUTBOUND_TOKEN_TTL_SECONDS,
    check: async () => {
      const found = await findProjectNumber(ctx.sql, projectId, body.from);
      if (!found || !found.number.outbound_enabled) {
        throw fieldError(['body', 'from'], 'must be a number of the project with outbound calls enabled');
      }
      if (found.carrier.status !== 'verified') throw carrierErrors.carrierUnavailable();
      carrierId = found.carrier.id;
    },
    finish: async (tx, inserted) => {
      const parties = await setCallParties(tx, inserted.id, { carrierId, fromE164: body.from, toE164: body.to, clearToken: true });
      if (hooks.finish) await hooks.finish(tx, parties);
      return parties;
    },
  });
  ctx.log.info({ session_id: row.id, project_id: projectId, carrier_id: carrierId }, 'outbound call admitted');
  // A dial never queued (Redis down here) is queued by the telephony sweeper.
  await kickDial(ctx, row.id);
  return { session: toSessionInfo(row), duplicate: false };
}
