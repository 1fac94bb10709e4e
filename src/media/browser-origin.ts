import type { AppContext } from '../shared/app-context.js';
import { browserSessionOrigins } from '../db/repos/publishable-key-origins.js';

// A session started with a publishable key (POST /v2/browser/sessions) is joined from a page:
// its socket's Origin must be one its key lists, as for the POST (contract §2, §11). Sessions
// of the API key door carry no key and are not checked (servers send no Origin).

/** Close code of a browser session's socket from another origin (4403, like HTTP 403). */
export const ORIGIN_NOT_ALLOWED = { code: 4403, reason: 'origin not allowed' } as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The refusal for this upgrade, or null when the origin is fine (or activation will refuse anyway). */
export async function browserOriginRefusal(ctx: AppContext, sessionId: string, token: string, origin: string): Promise<{ code: number; reason: string } | null> {
  if (!UUID.test(sessionId) || !token) return null;
  const origins = await browserSessionOrigins(ctx.sql, sessionId.toLowerCase(), token);
  if (origins === null || origins.includes(origin)) return null;
  return { ...ORIGIN_NOT_ALLOWED };
}
