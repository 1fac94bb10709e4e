import { z } from 'zod';
import { connectionBaseUrl, connectionInfoHead, connectionLabel, connectionUpdateBody, VerificationStatus } from './connections.js';

// Carrier connections and numbers (contract §10), console door only.

export const E164 = z.string().regex(/^\+[1-9][0-9]{6,14}$/, 'must be an E.164 number such as +14155550100');

export const TwilioCredentialsBody = z.strictObject({
  account_sid: z.string().regex(/^AC[0-9a-fA-F]{32}$/, 'must be AC followed by 32 hexadecimal digits'),
  // Printable ASCII without spaces: a pasted token with a stray newline is caught here.
  auth_token: z.string().regex(/^[!-~]{8,256}$/, 'must be 8 to 256 printable characters without spaces'),
});

export const CarrierCreateBody = z.strictObject({
  kind: z.literal('twilio'),
  label: connectionLabel,
  credentials: TwilioCredentialsBody,
  base_url: connectionBaseUrl.nullable().optional(),
});

export const CarrierUpdateBody = connectionUpdateBody(TwilioCredentialsBody);

export const CarrierInfo = z.object({
  ...connectionInfoHead({ kind: z.literal('twilio') }),
  account_sid: z.string(),
  token_hint: z.string(),
  status: VerificationStatus,
  status_detail: z.string().nullable(),
  revision: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

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
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
