import { z } from 'zod';
import { SCOPES } from './scopes.js';

export const email = z.string().trim().max(254).pipe(z.email());
export const password = z.string().min(12).max(256);

export const SignupBody = z.strictObject({ email, password });
export const LoginBody = z.strictObject({ email: z.string().max(254), password: z.string().max(256) });
export const VerifyEmailBody = z.strictObject({ token: z.string().min(1).max(200) });
export const RefreshBody = z.strictObject({ refresh_token: z.string().min(1).max(200) });

export const AccountInfo = z.object({ id: z.uuid(), email: z.string(), email_verified: z.boolean() });
export const TokenPairInfo = z.object({
  access_token: z.string(),
  refresh_token: z.string(),
  token_type: z.literal('bearer'),
  expires_in: z.number().int(),
});

export const ProjectCreateBody = z.strictObject({ name: z.string().trim().min(1).max(120) });
export const ProjectUpdateBody = z.strictObject({ name: z.string().trim().min(1).max(120) });
export const ProjectInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  api_rpm: z.number().int(),
  max_concurrent_sessions: z.number().int(),
  revision: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

export const ApiKeyCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  scopes: z.array(z.enum(SCOPES)).min(1).max(SCOPES.length).refine((s) => new Set(s).size === s.length, 'duplicate scope'),
});
export const ApiKeyInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  scopes: z.array(z.enum(SCOPES)),
  prefix: z.string(),
  created_at: z.iso.datetime(),
});
export const CreatedApiKey = ApiKeyInfo.extend({ key: z.string() });

export const EmailVerifiedInfo = z.object({ email_verified: z.boolean() });
export const LoggedOutInfo = z.object({ logged_out: z.boolean() });
