import { z } from 'zod';

// What carrier connections and provider accounts share in the API: a label, an optional
// base_url, credentials that can be replaced (never shown again), and a verification status.

export const connectionLabel = z.string().trim().min(1).max(120);
export const connectionBaseUrl = z.string().trim().min(8).max(2048);

/** The PATCH body: any of a new label, new credentials and a new base_url (null: the provider's own host). */
export const connectionUpdateBody = <C extends z.ZodType>(credentials: C) =>
  z.strictObject({ label: connectionLabel.optional(), credentials: credentials.optional(), base_url: connectionBaseUrl.nullable().optional() });

/** The first fields of a connection's document: id, project, what it connects to (`kind`), label, base_url. */
export const connectionInfoHead = <K extends z.ZodRawShape>(kind: K) => ({
  id: z.uuid(),
  project_id: z.uuid(),
  ...kind,
  label: z.string(),
  base_url: z.string().nullable(),
});

export const VerificationStatus = z.enum(['unverified', 'verified', 'invalid']);
