import type { AppContext } from '../shared/app-context.js';
import type { CreateOutboundVoiceSessionBody } from '../contract/voice-sessions.js';
import { getCarrierCall, setCallParties, type CarrierCallRow } from '../db/repos/carrier-calls.js';
import { findProjectNumber } from '../db/repos/carrier-numbers.js';
import { findIdempotencyKey, lockIdempotencyKey, rememberIdempotencyKey, type IdempotencyRecord } from '../db/repos/idempotency-keys.js';
import { toSessionInfo, type SessionInfo } from '../db/repos/voice-sessions.js';
import { admitCall } from '../sessions/admission.js';
import { AppError, carrierErrors, fieldError } from '../shared/errors.js';
import { isUniqueViolation } from '../shared/pg-errors.js';
import { kickDial } from './dial-queue.js';
import { bodyHash, IDEMPOTENCY_HEADER } from './idempotency.js';
import { OUTBOUND_TOKEN_TTL_SECONDS } from './timing.js';

// POST /v2/voice/sessions/outbound (and its console twin): the same admission as a media session
// (agent, variables, providers, wallet hold, concurrency slot), plus the caller's `from` number and
// its carrier, plus Idempotency-Key. The session is created with no media token; the dial job
// makes one when it places the call. 202: the call is queued, not placed.

export interface OutboundAdmitted {
  session: SessionInfo;
  duplicate: boolean;
}

/** Carrier sessions run at the phone network's rate both ways: no resampling anywhere. */
export const PHONE_SAMPLE_RATE_HZ = 8000;

class DuplicateKey extends Error {
  constructor(readonly record: IdempotencyRecord) {
    super('duplicate Idempotency-Key');
  }
}

export async function admitOutbound(
  ctx: AppContext,
  projectId: string,
  body: CreateOutboundVoiceSessionBody,
  idempotencyKey?: string,
): Promise<OutboundAdmitted> {
  const key = idempotencyKey;
  const hash = key === undefined ? null : bodyHash(body);
  const now = ctx.clock.now();

  // A repeat answers with the first session whatever has changed since (wallet, slots, agent).
  if (key !== undefined) {
    const known = await findIdempotencyKey(ctx.sql, projectId, key, now);
    if (known) return duplicateOf(ctx, projectId, known, hash!);
  }

  let carrierId = '';
  try {
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
        if (found.carrier.kind !== 'twilio' || found.carrier.status !== 'verified') throw carrierErrors.carrierUnavailable();
        carrierId = found.carrier.id;
      },
      begin:
        key === undefined
          ? undefined
          : async (tx) => {
              // Concurrent duplicates queue here; the first one's row is visible to the rest.
              await lockIdempotencyKey(tx, projectId, key);
              const known = await findIdempotencyKey(tx, projectId, key, now);
              if (known) throw new DuplicateKey(known);
            },
      finish: async (tx, inserted) => {
        const row = await setCallParties(tx, inserted.id, { carrierId, fromE164: body.from, toE164: body.to, clearToken: true });
        if (key !== undefined) await rememberIdempotencyKey(tx, { projectId, key, bodySha256: hash!, sessionId: row.id, now });
        return row;
      },
    });
    ctx.log.info({ session_id: row.id, project_id: projectId, carrier_id: carrierId }, 'outbound call admitted');
    await kickDial(ctx, row.id);
    return { session: toSessionInfo(row), duplicate: false };
  } catch (err) {
    if (err instanceof DuplicateKey) return duplicateOf(ctx, projectId, err.record, hash!);
    // No slot (full, or Redis unavailable) is taken before the key is looked at: a duplicate of a
    // call still being admitted waits for it on the key's lock, and answers with it if it landed.
    if (key !== undefined && err instanceof AppError && (err.status === 429 || err.status === 503)) {
      const known = await ctx.sql.begin(async (tx) => {
        await lockIdempotencyKey(tx, projectId, key);
        return findIdempotencyKey(tx, projectId, key, now);
      });
      if (known) return duplicateOf(ctx, projectId, known, hash!);
    }
    if (key !== undefined && isUniqueViolation(err, 'outbound_idempotency_keys_pkey')) {
      const known = await findIdempotencyKey(ctx.sql, projectId, key, now);
      if (known) return duplicateOf(ctx, projectId, known, hash!);
    }
    throw err;
  }
}

async function duplicateOf(ctx: AppContext, projectId: string, known: IdempotencyRecord, hash: string): Promise<OutboundAdmitted> {
  if (known.body_sha256 !== hash) {
    throw fieldError(['header', IDEMPOTENCY_HEADER], 'this key was already used with a different request body', 'idempotency_conflict');
  }
  const row = (await getCarrierCall(ctx.sql, known.session_id)) as CarrierCallRow;
  if (row.project_id !== projectId) throw new Error('idempotency key points at another project');
  // A dial that was never queued (Redis down at admission) is queued again; the job id dedupes.
  if (row.status === 'created' && !row.dial_started_at && !row.settled_at) await kickDial(ctx, row.id);
  return { session: toSessionInfo(row), duplicate: true };
}
