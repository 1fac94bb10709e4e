import { sha256Hex } from '../../shared/crypto/tokens.js';
import type { Db } from '../../shared/sql.js';

// Origins of publishable keys, for CORS on the publishable-key routes (control/plugins/cors.ts)
// and the Origin check of browser sessions' media sockets (media/browser-origin.ts).

/** True when a live key of a project in good standing lists `origin`. */
export async function originOfAnyLiveKey(sql: Db, origin: string): Promise<boolean> {
  const [row] = await sql<{ found: boolean }[]>`
    select exists (
      select 1 from publishable_keys k join projects p on p.id = k.project_id
      where k.revoked_at is null and not p.suspended and ${origin} = any(k.origins)) as found`;
  return row.found;
}

/**
 * The origins a browser session's socket may come from: its publishable key's list, when the
 * session was started with one and `token` is its media token; null otherwise (not a browser
 * session, or the token is wrong and activation refuses it anyway).
 */
export async function browserSessionOrigins(sql: Db, sessionId: string, token: string): Promise<string[] | null> {
  const [row] = await sql<{ origins: string[] }[]>`
    select k.origins from voice_sessions v join publishable_keys k on k.id = v.publishable_key_id
    where v.id = ${sessionId} and v.token_hash = ${sha256Hex(token)}`;
  return row?.origins ?? null;
}
