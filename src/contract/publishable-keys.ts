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

export const PublishableKeyCreateBody = z.strictObject({
  name: z.string().trim().min(1).max(120),
  origins: z.array(Origin).min(1).max(50),
  agent_ids: z.array(z.uuid()).min(1).max(100).nullable().default(null),
});

export const PublishableKeyInfo = z.object({
  id: z.uuid(),
  name: z.string(),
  origins: z.array(z.string()),
  agent_ids: z.array(z.uuid()).nullable(),
  created_at: z.iso.datetime(),
});
export const CreatedPublishableKey = PublishableKeyInfo.extend({ key: z.string() });
