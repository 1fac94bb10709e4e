import { z } from 'zod';
import { PROVIDERS } from './catalogue.js';

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

const label = z.string().trim().min(1).max(120);
const baseUrl = z.string().trim().min(8).max(2048);
// Long enough that the four-character hint does not give much of it away.
export const Credentials = z.strictObject({ api_key: z.string().trim().min(8).max(1024) });

export const ProviderAccountCreateBody = z.strictObject({
  provider: z.enum(PROVIDERS),
  label,
  credentials: Credentials.optional(),
  base_url: baseUrl.nullable().optional(),
});

export const ProviderAccountUpdateBody = z.strictObject({
  label: label.optional(),
  credentials: Credentials.optional(),
  base_url: baseUrl.nullable().optional(),
});

export const ProviderAccountInfo = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  provider: z.enum(PROVIDERS),
  label: z.string(),
  base_url: z.string().nullable(),
  status: z.enum(['unverified', 'verified', 'invalid']),
  status_detail: z.string().nullable(),
  key_hint: z.string(),
  revision: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
