import type { AppContext } from '../shared/app-context.js';
import {
  createCarrier,
  getCarrier,
  getCarrierCredentials,
  isTelnyxCredentials,
  recordCarrierVerification,
  setCarrierConnectionId,
  updateCarrier,
  type CarrierCredentials,
  type CarrierInfo,
  type CarrierKind,
  type TwilioCarrierCredentials,
} from '../db/repos/carriers.js';
import { TelnyxRestClient, verifyTelnyxKey } from './telnyx/rest-client.js';
import { telnyxNumbers } from './telnyx/numbers.js';
import { z } from 'zod';
import { TelnyxCredentialsBody, TwilioCredentialsBody } from '../contract/carriers.js';
import { parseInput } from '../contract/validation.js';
import { outboundUrlProblem } from '../providers/url.js';
import { carrierErrors, errors } from '../shared/errors.js';
import { TwilioRestClient, verifyTwilioAccount } from './twilio/rest-client.js';
import { twilioNumbers } from './twilio/incoming-numbers.js';
import type { NumberConfigurator } from './number-config.js';

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
  body: { label?: string; credentials?: Record<string, unknown>; base_url?: string | null },
): Promise<CarrierInfo> {
  const current = await getCarrier(ctx.sql, projectId, carrierId);
  // The credentials of the carrier's own kind, with exact locations (`body.credentials.<field>`).
  const schema = z.strictObject({ credentials: current.kind === 'telnyx' ? TelnyxCredentialsBody : TwilioCredentialsBody });
  const credentials = body.credentials === undefined ? undefined : (parseInput(schema, { credentials: body.credentials }, 'body').credentials);
  if (Object.keys(body).length === 0) {
    throw errors.validation([{ loc: ['body'], msg: 'send at least one of label, credentials, base_url', type: 'value_error' }]);
  }
  checkBaseUrl(ctx, body.base_url);
  return updateCarrier(ctx, projectId, carrierId, { label: body.label, credentials, baseUrl: body.base_url });
}

/** One live, read-only call to the carrier; stores and returns the outcome. */
export async function verifyCarrier(ctx: AppContext, projectId: string, carrierId: string, opts: { timeoutMs?: number } = {}): Promise<CarrierInfo> {
  const carrier = await getCarrier(ctx.sql, projectId, carrierId);
  const creds = await getCarrierCredentials(ctx, carrierId);
  if (!creds) throw carrierErrors.carrierNotFound();
  const net = { baseUrl: carrier.base_url, allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, timeoutMs: opts.timeoutMs };
  const result = isTelnyxCredentials(creds)
    ? await verifyTelnyxKey(creds.api_key, net)
    : await verifyTwilioAccount({ accountSid: creds.account_sid, authToken: creds.auth_token }, net);
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
  if (!creds || isTelnyxCredentials(creds)) throw carrierErrors.carrierUnavailable();
  return new TwilioRestClient(
    { accountSid: creds.account_sid, authToken: creds.auth_token },
    { baseUrl: carrier.base_url, allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, timeoutMs: opts.timeoutMs },
  );
}

/** The numbers API of a carrier's account (configure, restore, list). */
export async function openNumberConfigurator(ctx: AppContext, carrier: Pick<CarrierInfo, 'id' | 'base_url' | 'kind'>): Promise<NumberConfigurator> {
  return carrier.kind === 'telnyx' ? telnyxNumbers(await openTelnyxClient(ctx, carrier)) : twilioNumbers(await openCarrierClient(ctx, carrier));
}

/** A Telnyx REST client for a live carrier; 503 "carrier connection unavailable" without credentials. */
export async function openTelnyxClient(ctx: AppContext, carrier: Pick<CarrierInfo, 'id' | 'base_url'>, opts: { timeoutMs?: number } = {}): Promise<TelnyxRestClient> {
  const creds = await getCarrierCredentials(ctx, carrier.id);
  if (!creds || !isTelnyxCredentials(creds)) throw carrierErrors.carrierUnavailable();
  return new TelnyxRestClient(creds.api_key, { baseUrl: carrier.base_url, allowPrivate: ctx.config.ALLOW_PRIVATE_URLS, timeoutMs: opts.timeoutMs });
}

/**
 * Telnyx: the Call Control application whose webhook is `webhookUrl`, created on first need
 * (under the carrier's row lock, so two requests never create two) and kept on the carrier.
 * An application deleted at Telnyx is created again; a moved webhook URL is updated.
 */
export async function ensureTelnyxApplication(ctx: AppContext, carrier: Pick<CarrierInfo, 'id' | 'base_url'>, webhookUrl: string): Promise<string> {
  const client = await openTelnyxClient(ctx, carrier);
  return ctx.sql.begin(async (tx) => {
    const [row] = await tx<{ connection_id: string | null }[]>`select connection_id from carriers where id = ${carrier.id} for update`;
    if (row?.connection_id) {
      const app = await client.getApplication(row.connection_id);
      if (app) {
        if (app.webhook_event_url !== webhookUrl) await client.updateApplication(app.id, webhookUrl);
        return app.id;
      }
    }
    const app = await client.createApplication(`voice-agent-service ${carrier.id}`, webhookUrl);
    await setCarrierConnectionId(tx, carrier.id, app.id);
    ctx.log.info({ carrier_id: carrier.id }, 'telnyx call control application created');
    return app.id;
  });
}

/** The API document of a carrier: each kind shows its own identity fields. */
export function carrierDocument(c: CarrierInfo): Record<string, unknown> {
  const { public_key, connection_id, account_sid, ...rest } = c;
  return c.kind === 'telnyx' ? { ...rest, public_key, connection_id } : { ...rest, account_sid };
}

export type { TwilioCarrierCredentials };
