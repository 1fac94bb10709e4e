import { z } from 'zod';

/** An origin exactly as browsers send it: scheme://host[:port], nothing more. */
export const Origin = z
  .string()
  .max(300)
  .refine((v) => {
    try {
      const u = new URL(v);
      return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v;
    } catch {
      return false;
    }
  }, 'must be an origin such as https://app.example.com');

/** Contract §11 defaults. `max_concurrent_sessions` is also capped by the project's own limit. */
export const KEY_DEFAULT_MAX_CONCURRENT_SESSIONS = 5;
export const KEY_DEFAULT_CONNECT_WINDOW_SECONDS = 15;
export const KEY_DEFAULT_MAX_DURATION_SECONDS = 300;

// What one publishable key may hold of its project, so a public page cannot squat it: live
// browser sessions at once, seconds to connect before an unused session ends and gives back its
// slot and hold (the ws_url lives this long), and the longest call (it sizes the hold).
const keyLimits = {
  max_concurrent_sessions: z.number().int().min(0).max(100_000),
  connect_window_seconds: z.number().int().min(5).max(60),
  max_duration_seconds: z.number().int().min(1).max(14_400),
};

export const PublishableKeyCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  origins: z.array(Origin).min(1).max(50),
  agent_ids: z.array(z.uuid()).min(1).max(100).nullable().default(null),
  // Optional rather than defaulted here, so clients generated from the schema need not send them:
  // 5 (or the project's limit when lower), 15 and 300 are applied by the route.
  max_concurrent_sessions: keyLimits.max_concurrent_sessions.optional(),
  connect_window_seconds: keyLimits.connect_window_seconds.optional(),
  max_duration_seconds: keyLimits.max_duration_seconds.optional(),
});
export type PublishableKeyCreateBody = z.output<typeof PublishableKeyCreateBody>;

/** Only the fields sent change; the key material stays (rotate replaces it). */
export const PublishableKeyUpdateBody = z.strictObject({
  name: z.string().trim().min(1).max(120).optional(),
  origins: z.array(Origin).min(1).max(50).optional(),
  agent_ids: z.array(z.uuid()).min(1).max(100).nullable().optional(),
  max_concurrent_sessions: keyLimits.max_concurrent_sessions.optional(),
  connect_window_seconds: keyLimits.connect_window_seconds.optional(),
  max_duration_seconds: keyLimits.max_duration_seconds.optional(),
});
export type PublishableKeyUpdateBody = z.output<typeof PublishableKeyUpdateBody>;

export const PublishableKeyInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  origins: z.array(z.string()),
  agent_ids: z.array(z.uuid()).nullable(),
  max_concurrent_sessions: z.number().int(),
  connect_window_seconds: z.number().int(),
  max_duration_seconds: z.number().int(),
  created_at: z.iso.datetime(),
});
export const CreatedPublishableKey = PublishableKeyInfo.extend({ key: z.string() });
