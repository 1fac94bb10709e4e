import { z } from 'zod';
import { PROVIDERS } from './catalogue.js';
import { connectionBaseUrl, connectionInfoHead, connectionLabel, connectionUpdateBody, VerificationStatus } from './connections.js';

export const CatalogueInfo = z.array(
  z.object({
    provider: z.enum(PROVIDERS),
    stages: z.object({
      stt: z.array(z.string()).optional(),
      llm: z.array(z.string()).optional(),
      tts: z.array(z.string()).optional(),
      realtime: z.array(z.string()).optional(),
    }),
  }),
);

// Long enough that the four-character hint does not give much of it away.
export const Credentials = z.strictObject({ api_key: z.string().trim().min(8).max(1024) });

export const ProviderAccountCreateBody = z.strictObject({
  provider: z.enum(PROVIDERS),
  label: connectionLabel,
  credentials: Credentials.optional(),
  base_url: connectionBaseUrl.nullable().optional(),
});

export const ProviderAccountUpdateBody = connectionUpdateBody(Credentials);

export const ProviderAccountInfo = z.object({
  ...connectionInfoHead({ provider: z.enum(PROVIDERS) }),
  status: VerificationStatus,
  status_detail: z.string().nullable(),
  key_hint: z.string(),
  revision: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
