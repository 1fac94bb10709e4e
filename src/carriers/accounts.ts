import type { AppContext } from '../shared/app-context.js';
import {
  createCarrier,
  getCarrier,
  getCarrierCredentials,
  recordCarrierVerification,
  updateCarrier,
  type CarrierCredentials,
  type CarrierInfo,
  type CarrierKind,
} from '../db/repos/carriers.js';
import { outboundUrlProblem } from '../providers/url.js';
import { carrierErrors, errors } from '../shared/errors.js';
import { TwilioRestClient, verifyTwilioAccount } from './twilio/rest-client.js';

// Carrier connections: the rules zod cannot express on one field (where base_url may point)
// and the live verification against the carrier.

function checkBaseUrl(ctx: AppContext, baseUrl: string | null | undefined): void {
  if (baseUrl === undefined || baseUrl === null) return;
  const problem = outboundUrlProblem(baseUrl, ctx.config.ALLOW_PRIVATE_URLS);
  if (problem) throw errors.validation([{ loc: ['body', 'base_url'], msg: `base_url ${problem}`, type: 'value_error' }]);
}

export async function createCarrierConnection(
  ctx: AppContext,
  projectId: string,
  body: { kind: CarrierKind; label: string; credentials: CarrierCredentials; base_url?: string | null },
): Promise<CarrierInfo> {
  checkBaseUrl(ctx, body.base_url);
  const carrier = await createCarrier(ctx, projectId, { kind: body.kind, label: body.label, credentials: body.credentials, baseUrl: body.base_url ?? null });
  ctx.log.info({ carrierId: carrier.id, projectId, kind: carrier.kind }, 'carrier created');
  return carrier;
}

export async function updateCarrierConnection(
  ctx: AppContext,
  projectId: string,
  carrierId: string,
  body: { label?: string; credentials?: CarrierCredentials; base_url?: string | null },
): Promise<CarrierInfo> {
  await getCarrier(ctx.sql, projectId, carrierId);
  if (Object.keys(body).length === 0) {
    throw errors.validation([{ loc: ['body'], msg: 'send at least one of label, credentials, base_url', type: 'value_error' }]);
  }
  checkBaseUrl(ctx, body.base_url);
  return updateCarrier(ctx, projectId, carrierId, { label: body.label, credentials: body.credentials, baseUrl: body.base_url });
}

/** One live, read-only call to the carrier; stores and returns the outcome. */
export async function verifyCarrier(ctx: AppContext, projectId: string, carrierId: string, opts: { timeoutMs?: number } = {}): Promise<CarrierInfo> {
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  const creds = await getCarrierCredentials(ctx, carrierId);
  if (!creds) throw carrierErrors.carrierNotFound();
  const result = await verifyTwilioAccount(
    { accountSid: creds.account_sid, authToken: creds.auth_token },
    { baseUrl: carrier.base_url, allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, timeoutMs: opts.timeoutMs },
  );
  ctx.log.info({ carrierId, projectId, status: result.status }, 'carrier verified');
  return recordCarrierVerification(ctx, projectId, carrierId, carrier.revision, result);
}

/**
 * A Twilio REST client for a live carrier (placing calls, fetching recordings). The credentials
 * are decrypted here, in the process that uses them, never carried in a job payload.
 * 503 "carrier connection unavailable" when the carrier or its credentials are gone.
 */
export async function openCarrierClient(
  ctx: AppContext,
  carrier: Pick<CarrierInfo, 'id' | 'base_url'>,
  opts: { timeoutMs?: number } = {},
): Promise<TwilioRestClient> {
  const creds = await getCarrierCredentials(ctx, carrier.id);
  if (!creds) throw carrierErrors.carrierUnavailable();
  return new TwilioRestClient(
    { accountSid: creds.account_sid, authToken: creds.auth_token },
    { baseUrl: carrier.base_url, allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, timeoutMs: opts.timeoutMs },
  );
}
