import type { AppContext } from '../shared/app-context.js';
import { ensureTelnyxApplication, openNumberConfigurator } from '../carriers/accounts.js';
import { BadCursor, type CarrierNumber, type NumberConfigurator, type NumberTarget } from '../carriers/number-config.js';
import { CarrierRestError } from '../carriers/rest-error.js';
import {
  createCarrierNumber,
  deleteCarrierNumber,
  findCarrierNumbersByE164,
  getCarrierNumber,
  getNumberCarrierState,
  listCarrierNumbers,
  recordNumberCarrierState,
  updateCarrierNumber,
  type CarrierNumberInfo,
} from '../db/repos/carrier-numbers.js';
import { getCarrier, type CarrierInfo } from '../db/repos/carriers.js';
import { AppError, carrierErrors, fieldError } from '../shared/errors.js';
import { numberStatusCallbackUrl, telnyxWebhookUrl, voiceWebhookUrl } from './urls.js';

// Numbers configured at the carrier. A number bound to an agent must send its calls to our
// voice webhook: binding (at creation or later) points it there, unbinding or deleting puts
// back the settings it had before (saved, before the change is asked for, the first time we
// change it). A number whose voice URL someone changed at the carrier since is left alone. The
// outcome is kept on the number (carrier_configured, carrier_error) and `sync` applies the
// desired state again. The carrier is asked after the number's row is committed: a carrier that
// cannot be reached leaves an error on the number, never a failed request.

export type NumberView = CarrierNumberInfo & { voice_url: string };

/** Why the desired state could not be applied (stored as carrier_error). */
class NotApplied extends Error {}

/** The URL the carrier must send the number's calls to (Telnyx: our application's webhook). */
const inboundUrl = (ctx: AppContext, carrier: Pick<CarrierInfo, 'id' | 'kind'>) =>
  carrier.kind === 'telnyx' ? telnyxWebhookUrl(ctx, carrier.id) : voiceWebhookUrl(ctx, carrier.id);
const view = (ctx: AppContext, carrier: Pick<CarrierInfo, 'id' | 'kind'>, n: CarrierNumberInfo): NumberView => ({ ...n, voice_url: inboundUrl(ctx, carrier) });

function describe(err: unknown): string {
  if (err instanceof NotApplied) return err.message;
  if (err instanceof CarrierRestError) return err.message;
  if (err instanceof AppError && err.status === 503) return 'the carrier credentials are not available';
  throw err;
}

async function target(ctx: AppContext, carrier: CarrierInfo): Promise<NumberTarget> {
  if (carrier.kind === 'telnyx') {
    const url = telnyxWebhookUrl(ctx, carrier.id);
    return { voiceUrl: url, statusCallbackUrl: url, connectionId: await ensureTelnyxApplication(ctx, carrier, url) };
  }
  return { voiceUrl: voiceWebhookUrl(ctx, carrier.id), statusCallbackUrl: numberStatusCallbackUrl(ctx, carrier.id) };
}

async function bind(ctx: AppContext, carrier: CarrierInfo, number: CarrierNumberInfo, cfg: NumberConfigurator): Promise<void> {
  const state = (await getNumberCarrierState(ctx.sql, number.id))!;
  const to = await target(ctx, carrier);
  const found = (state.carrier_number_ref ? await cfg.fetchNumber(state.carrier_number_ref) : null) ?? (await cfg.findNumber(number.e164));
  if (!found) throw new NotApplied(`${number.e164} is not a number of this ${carrier.kind === 'twilio' ? 'Twilio' : 'Telnyx'} account`);
  if (state.carrier_previous === null) {
    // What to put back later. Already ours (a retry after a lost answer): nothing else to restore.
    const previous = cfg.pointsAt(found.settings, to) ? {} : found.settings;
    await recordNumberCarrierState(ctx.sql, number.id, { ref: found.number.ref, previous });
  }
  await cfg.apply(found.number.ref, to, found.settings);
}

async function unbind(ctx: AppContext, carrier: CarrierInfo, number: CarrierNumberInfo, cfg: NumberConfigurator): Promise<void> {
  const state = (await getNumberCarrierState(ctx.sql, number.id))!;
  if (state.carrier_previous === null || !state.carrier_number_ref) return;
  const found = await cfg.fetchNumber(state.carrier_number_ref);
  // Changed at the carrier since (or gone): theirs now, not ours to put back.
  if (found && cfg.pointsAt(found.settings, await target(ctx, carrier)) && Object.keys(state.carrier_previous).length) {
    await cfg.restore(found.number.ref, state.carrier_previous);
  }
}

/** Applies the number's desired state at its carrier and records the outcome; returns the number. */
export async function reconcileNumber(ctx: AppContext, carrier: CarrierInfo, number: CarrierNumberInfo, opts: { removing?: boolean } = {}): Promise<CarrierNumberInfo> {
  const bound = number.agent_id !== null && !opts.removing;
  const state = await getNumberCarrierState(ctx.sql, number.id);
  if (!bound && !state?.carrier_previous) {
    return (await recordNumberCarrierState(ctx.sql, number.id, { configured: false, error: null })) ?? number;
  }
  try {
    if (bound && carrier.status !== 'verified') throw new NotApplied('the carrier connection is not verified: verify it, then sync this number');
    const cfg = await openNumberConfigurator(ctx, carrier);
    if (bound) await bind(ctx, carrier, number, cfg);
    else await unbind(ctx, carrier, number, cfg);
    const done = bound ? { configured: true, error: null } : { configured: false, error: null, previous: null };
    ctx.log.info({ number_id: number.id, carrier_id: carrier.id, bound }, 'number configured at the carrier');
    return (await recordNumberCarrierState(ctx.sql, number.id, done)) ?? number;
  } catch (err) {
    const detail = describe(err);
    ctx.log.warn({ number_id: number.id, carrier_id: carrier.id, bound }, 'number not configured at the carrier');
    const failed = bound ? { configured: false, error: `could not point the number at this service: ${detail}` } : { error: `could not restore the number's previous settings: ${detail}` };
    return (await recordNumberCarrierState(ctx.sql, number.id, failed)) ?? number;
  }
}

export async function addNumber(
  ctx: AppContext,
  projectId: string,
  carrierId: string,
  input: { e164: string; outboundEnabled: boolean; agentId: string | null },
): Promise<NumberView> {
  const number = await createCarrierNumber(ctx, projectId, carrierId, input);
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  if (!number.agent_id) return view(ctx, carrier, number);
  return view(ctx, carrier, await reconcileNumber(ctx, carrier, number));
}

export async function changeNumber(
  ctx: AppContext,
  projectId: string,
  carrierId: string,
  numberId: string,
  changes: { outboundEnabled?: boolean; agentId?: string | null },
): Promise<NumberView> {
  const before = await getCarrierNumber(ctx.sql, projectId, carrierId, numberId);
  const after = await updateCarrierNumber(ctx, projectId, carrierId, numberId, changes);
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  // Only a change of binding touches the carrier (a new agent keeps the same voice URL).
  if ((before.agent_id === null) === (after.agent_id === null)) return view(ctx, carrier, after);
  return view(ctx, carrier, await reconcileNumber(ctx, carrier, after));
}

/** Puts the number's previous settings back (best effort: the error stays on the record), then deletes it. */
export async function removeNumber(ctx: AppContext, projectId: string, carrierId: string, numberId: string): Promise<NumberView> {
  const number = await getCarrierNumber(ctx.sql, projectId, carrierId, numberId);
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  await reconcileNumber(ctx, carrier, number, { removing: true });
  return view(ctx, carrier, await deleteCarrierNumber(ctx, projectId, carrierId, numberId));
}

export async function syncNumber(ctx: AppContext, projectId: string, carrierId: string, numberId: string): Promise<NumberView> {
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  const number = await getCarrierNumber(ctx.sql, projectId, carrierId, numberId);
  return view(ctx, carrier, await reconcileNumber(ctx, carrier, number));
}

export async function getNumber(ctx: AppContext, projectId: string, carrierId: string, numberId: string): Promise<NumberView> {
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  return view(ctx, carrier, await getCarrierNumber(ctx.sql, projectId, carrierId, numberId));
}

export async function listNumbers(ctx: AppContext, projectId: string, carrierId: string, limit: number, offset: number): Promise<NumberView[]> {
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  return (await listCarrierNumbers(ctx, projectId, carrierId, limit, offset)).map((n) => view(ctx, carrier, n));
}

export interface IncomingNumbers {
  numbers: (CarrierNumber & { number_id: string | null })[];
  next_page_token: string | null;
}

/** The account's numbers at the carrier, for import; `number_id` names the ones already on this carrier. */
export async function listIncomingNumbers(ctx: AppContext, projectId: string, carrierId: string, pageSize: number, pageToken: string | null): Promise<IncomingNumbers> {
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  if (carrier.status !== 'verified') throw carrierErrors.carrierUnavailable();
  const cfg = await openNumberConfigurator(ctx, carrier);
  let page;
  try {
    page = await cfg.listNumbers(pageSize, pageToken);
  } catch (err) {
    if (err instanceof BadCursor) throw fieldError(['query', 'page_token'], err.message);
    if (err instanceof CarrierRestError) {
      ctx.log.warn({ carrier_id: carrierId, kind: err.kind, http_status: err.httpStatus }, 'incoming numbers not listed');
      throw carrierErrors.carrierUnavailable();
    }
    throw err;
  }
  const known = new Map((await findCarrierNumbersByE164(ctx.sql, carrierId, page.numbers.map((n) => n.e164))).map((n) => [n.e164, n.id]));
  return { numbers: page.numbers.map((n) => ({ ...n, number_id: known.get(n.e164) ?? null })), next_page_token: page.next };
}
