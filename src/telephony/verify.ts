import type { AppContext } from '../shared/app-context.js';
import { validateSignature } from '../carriers/twilio/signature.js';
import { verifyTelnyxSignature } from '../carriers/telnyx/signature.js';
import { findLiveCarrier, getCarrierCredentials, isTelnyxCredentials, type CarrierInfo } from '../db/repos/carriers.js';
import { signedUrl } from './urls.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The carrier named in a callback's path, when the request carries its X-Twilio-Signature over
 * the public URL and the form parameters; null for anything else (unknown or deleted carrier,
 * no or wrong signature), which the route answers with one and the same 403.
 */
export async function verifyTwilioRequest(
  ctx: AppContext,
  carrierId: string,
  requestUrl: string,
  signature: string | undefined,
  form: URLSearchParams,
): Promise<CarrierInfo | null> {
  if (!signature || !UUID.test(carrierId)) return null;
  const carrier = await findLiveCarrier(ctx.sql, carrierId);
  if (!carrier || carrier.kind !== 'twilio') return null;
  const creds = await getCarrierCredentials(ctx, carrier.id);
  if (!creds || isTelnyxCredentials(creds)) return null;
  return validateSignature(creds.auth_token, signature, signedUrl(ctx, requestUrl), form) ? carrier : null;
}

/**
 * The Telnyx carrier named in a webhook's path, when the raw body carries a valid Ed25519
 * signature of that carrier's account (telnyx-signature-ed25519 over `timestamp|body`) with a
 * fresh telnyx-timestamp; null for anything else (one and the same 403).
 */
export async function verifyTelnyxRequest(
  ctx: AppContext,
  carrierId: string,
  signature: string | undefined,
  timestamp: string | undefined,
  rawBody: Buffer,
): Promise<CarrierInfo | null> {
  if (!signature || !timestamp || !UUID.test(carrierId)) return null;
  const carrier = await findLiveCarrier(ctx.sql, carrierId);
  if (!carrier || carrier.kind !== 'telnyx' || !carrier.public_key) return null;
  const nowSeconds = Math.floor(ctx.clock.now().getTime() / 1000);
  return verifyTelnyxSignature(carrier.public_key, signature, timestamp, rawBody, nowSeconds) === 'ok' ? carrier : null;
}
