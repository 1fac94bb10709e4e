import type { AppContext } from '../shared/app-context.js';
import { disarmUnconfirmedDials, listPhoneCallsWithoutMedia, listUndialedOutbound, recordDialError } from '../db/repos/carrier-calls.js';
import { deleteExpiredIdempotencyKeys } from '../db/repos/idempotency-keys.js';
import { endSession } from '../sessions/settlement.js';
import { unavailableRecording } from './dial.js';
import { dialQueue, DIAL_JOB } from './dial-queue.js';
import { REQUEUE_AFTER_SECONDS, UNKNOWN_DIAL_GRACE_SECONDS } from './timing.js';
import { runPeriodically } from '../shared/periodic.js';

// What the telephony flows leave behind when a process, Redis or the carrier drops something:
// - an admitted outbound call whose dial job was never queued (Redis down at admission) → queued again;
// - a dial whose outcome is unknown and that no status callback has confirmed → failed / carrier_error;
// - a phone session that rang or was answered but whose media stream never came → failed / carrier_error;
// - Idempotency-Keys older than 24 h → forgotten.
// Sessions that never started at all (token window over) are the session sweeper's: not_connected.

export const TELEPHONY_SWEEP_INTERVAL_MS = 5_000;
const BATCH = 200;

export const UNCONFIRMED_DIAL_DETAIL = 'The carrier did not confirm the call, so it is not known to have been recorded.';

export interface TelephonySweep {
  requeued: number;
  unconfirmed: number;
  noMedia: number;
  keysForgotten: number;
}

export async function sweepTelephonyOnce(ctx: AppContext): Promise<TelephonySweep> {
  const now = ctx.clock.now();

  const waiting = await listUndialedOutbound(ctx.sql, new Date(now.getTime() - REQUEUE_AFTER_SECONDS * 1000), now, BATCH);
  if (waiting.length) {
    await dialQueue(ctx).addBulk(waiting.map(({ id }) => ({ name: DIAL_JOB, data: { sessionId: id }, opts: { jobId: id } })));
  }

  // Disarmed (no token) before settling: a stream cannot start on a call we give up on.
  const unconfirmed = await disarmUnconfirmedDials(ctx.sql, new Date(now.getTime() - UNKNOWN_DIAL_GRACE_SECONDS * 1000), BATCH);
  for (const r of unconfirmed) {
    await recordDialError(ctx.sql, r.id, 'the carrier never confirmed the call', r.record ? unavailableRecording(UNCONFIRMED_DIAL_DETAIL) : null);
    await endSession(ctx, r.id, { outcome: 'failed', endReason: 'carrier_error' });
  }

  const noMedia = await listPhoneCallsWithoutMedia(ctx.sql, now, BATCH);
  for (const { id } of noMedia) await endSession(ctx, id, { outcome: 'failed', endReason: 'carrier_error' });

  const keysForgotten = await deleteExpiredIdempotencyKeys(ctx.sql, now);
  return { requeued: waiting.length, unconfirmed: unconfirmed.length, noMedia: noMedia.length, keysForgotten };
}

/** Started by the worker role (a first sweep at once, then every interval); returns its stop function. */
export function startTelephonySweeper(ctx: AppContext, intervalMs = TELEPHONY_SWEEP_INTERVAL_MS): () => Promise<void> {
  return runPeriodically(
    async () => {
      const r = await sweepTelephonyOnce(ctx);
      if (r.requeued || r.unconfirmed || r.noMedia) ctx.log.info(r, 'telephony swept');
    },
    intervalMs,
    (err) => ctx.log.error({ err }, 'telephony sweep failed'),
    { unref: true },
  );
}
