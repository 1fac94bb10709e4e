import { z } from 'zod';
import { queryInt } from './validation.js';
import { connectionBaseUrl, connectionInfoHead, connectionLabel, connectionUpdateBody, VerificationStatus } from './connections.js';

// Carrier connections and numbers (contract §10), console door only.

export const E164 = z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'must be an E.164 number such as +14155550100');

export const TwilioCredentialsBody = z.strictObject({
  account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hexadecimal digits'),
  // Printable ASCII without spaces: a pasted token with a stray newline is caught here.
  auth_token: z.string().regex(/^[!-~]{8,256}$/, 'must be 8 to 256 printable characters without spaces'),
});

/** Telnyx: an API key (secret) and the account's public key (base64 Ed25519, signs webhooks). */
export const TelnyxCredentialsBody = z.strictObject({
  api_key: z.string().regex(/^[!-~]{8,256}$/, 'must be 8 to 256 printable characters without spaces'),
  public_key: z.string().regex(/^[A-Za-z0-9+/]{43}=$/, 'must be the base64 Ed25519 public key from the Telnyx portal (44 characters)'),
});

const createBody = <K extends string, C extends z.ZodType>(kind: K, credentials: C) =>
  z.strictObject({ kind: z.literal(kind), label: connectionLabel, credentials, base_url: connectionBaseUrl.nullable().optional() });

export const CarrierCreateBody = z.discriminatedUnion('kind', [createBody('twilio', TwilioCredentialsBody), createBody('telnyx', TelnyxCredentialsBody)]);

/** New credentials must be the carrier's kind (checked against the stored carrier: 422 at `credentials`). */
export const CarrierUpdateBody = connectionUpdateBody(
  z.record(z.string(), z.unknown()).describe('twilio: {account_sid, auth_token}; telnyx: {api_key, public_key}'),
);

const carrierTail = {
  token_hint: z.string(),
  status: VerificationStatus,
  status_detail: z.string().nullable(),
  revision: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
};

export const CarrierInfo = z.discriminatedUnion('kind', [
  z.object({ ...connectionInfoHead({ kind: z.literal('twilio') }), account_sid: z.string(), ...carrierTail }),
  z.object({
    ...connectionInfoHead({ kind: z.literal('telnyx') }),
    public_key: z.string(),
    /** The Call Control application whose webhook is ours (created when first needed). */
    connection_id: z.string().nullable(),
    ...carrierTail,
  }),
]);

export const CarrierNumberCreateBody = z.strictObject({
  e164: E164,
  outbound_enabled: z.boolean(),
  agent_id: z.uuid().nullable().optional(),
});

export const CarrierNumberUpdateBody = z.strictObject({
  outbound_enabled: z.boolean().optional(),
  agent_id: z.uuid().nullable().optional(),
});

export const CarrierNumberInfo = z.object({
  id: z.uuid(),
  carrier_id: z.uuid(),
  project_id: z.uuid(),
  e164: z.string(),
  outbound_enabled: z.boolean(),
  agent_id: z.uuid().nullable(),
  /** What the number's voice webhook at the carrier must be (set by the service when bound). */
  voice_url: z.string(),
  /** Whether the carrier sends the number's calls here (bound) or got its settings back (unbound). */
  carrier_configured: z.boolean(),
  /** Why the last change at the carrier failed; null when it worked. */
  carrier_error: z.string().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const IncomingNumbersQuery = z.strictObject({
  page_size: queryInt(1, 100).default(50),
  page_token: z.string().min(1).max(2048).regex(/^[A-Za-z0-9_-]+$/, 'must be a page_token this API gave').optional(),
});

/** A number of the carrier account, for import; `number_id` is set when it is already on this carrier. */
export const IncomingNumber = z.object({
  ref: z.string(),
  e164: z.string(),
  friendly_name: z.string().nullable(),
  voice_url: z.string().nullable(),
  voice_capable: z.boolean(),
  number_id: z.uuid().nullable(),
});

export const IncomingNumbersPage = z.object({
  numbers: z.array(IncomingNumber),
  next_page_token: z.string().nullable(),
});
