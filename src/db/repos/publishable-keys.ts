import type { AppContext } from '../../shared/app-context.js';
import type { Db, Tx } from '../../shared/sql.js';
import { randomBase62, sha256Hex } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';

export interface PublishableKeyInfo {
  id: string;
  name: string;
  origins: string[];
  agent_ids: string[] | null;
  max_concurrent_sessions: number;
  connect_window_seconds: number;
  max_duration_seconds: number;
  created_at: Date;
}

/** A key's share of its project (contract §11). */
export interface PublishableKeyLimits {
  max_concurrent_sessions: number;
  connect_window_seconds: number;
  max_duration_seconds: number;
}

const COLUMNS = ['id', 'name', 'origins', 'agent_ids', 'max_concurrent_sessions', 'connect_window_seconds', 'max_duration_seconds', 'created_at'];
const newKey = () => `pk_${randomBase62(43)}`;

export async function createPublishableKey(
  ctx: AppContext,
  projectId: string,
  input: { name: string; origins: string[]; agent_ids: string[] | null } & PublishableKeyLimits,
) {
  const key = newKey();
  const [row] = await ctx.sql<PublishableKeyInfo[]>`
    insert into publishable_keys (project_id, name, origins, agent_ids, key_hash, max_concurrent_sessions, connect_window_seconds, max_duration_seconds)
    values (${projectId}, ${input.name}, ${input.origins}, ${input.agent_ids}, ${sha256Hex(key)},
      ${input.max_concurrent_sessions}, ${input.connect_window_seconds}, ${input.max_duration_seconds})
    returning ${ctx.sql(COLUMNS)}`;
  return { ...row, key };
}

export type PublishableKeyChanges = Partial<{ name: string; origins: string[]; agent_ids: string[] | null } & PublishableKeyLimits>;

/** Changes the sent fields of a live key (404 for a revoked or another project's key). */
export async function updatePublishableKey(ctx: AppContext, projectId: string, id: string, changes: PublishableKeyChanges) {
  const set = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
  const [row] = Object.keys(set).length
    ? await ctx.sql<PublishableKeyInfo[]>`
        update publishable_keys set ${ctx.sql(set)} where id = ${id} and project_id = ${projectId} and revoked_at is null
        returning ${ctx.sql(COLUMNS)}`
    : await ctx.sql<PublishableKeyInfo[]>`
        select ${ctx.sql(COLUMNS)} from publishable_keys where id = ${id} and project_id = ${projectId} and revoked_at is null`;
  if (!row) throw errors.notFound('publishable key not found');
  return row;
}

export async function listPublishableKeys(ctx: AppContext, projectId: string, limit: number, offset: number) {
  return ctx.sql<PublishableKeyInfo[]>`
    select ${ctx.sql(COLUMNS)} from publishable_keys where project_id = ${projectId} and revoked_at is null
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function revokePublishableKey(ctx: AppContext, projectId: string, id: string) {
  const [row] = await ctx.sql<PublishableKeyInfo[]>`
    update publishable_keys set revoked_at = now() where id = ${id} and project_id = ${projectId} and revoked_at is null
    returning ${ctx.sql(COLUMNS)}`;
  if (!row) throw errors.notFound('publishable key not found');
  return row;
}

/** Replaces the key material; the old key stops working at once. */
export async function rotatePublishableKey(ctx: AppContext, projectId: string, id: string) {
  const key = newKey();
  const [row] = await ctx.sql<PublishableKeyInfo[]>`
    update publishable_keys set key_hash = ${sha256Hex(key)} where id = ${id} and project_id = ${projectId} and revoked_at is null
    returning ${ctx.sql(COLUMNS)}`;
  if (!row) throw errors.notFound('publishable key not found');
  return { ...row, key };
}

/** The live key behind an `X-Publishable-Key` header, with its project. */
export async function findPublishableKey(ctx: AppContext, presented: string) {
  if (!/^pk_[0-9A-Za-z]{43}$/.test(presented)) return undefined;
  const [row] = await ctx.sql`
    select k.id, k.project_id, k.origins, k.agent_ids, k.max_concurrent_sessions, k.connect_window_seconds, k.max_duration_seconds, p.suspended
    from publishable_keys k join projects p on p.id = k.project_id
    where k.key_hash = ${sha256Hex(presented)} and k.revoked_at is null`;
  return row as PresentedKey | undefined;
}

export type PresentedKey = { id: string; project_id: string; origins: string[]; agent_ids: string[] | null; suspended: boolean } & PublishableKeyLimits;

// A browser session records the key it was started with: the key's budget counts them.

/** Marks a just-inserted session (admission transaction) as started with this key. */
export async function setSessionPublishableKey(tx: Tx, sessionId: string, keyId: string): Promise<void> {
  await tx`update voice_sessions set publishable_key_id = ${keyId} where id = ${sessionId}`;
}

// Same rule as the project's count (voice-sessions repo): unsettled, and active or still connectable.
const liveWithKey = (db: Db, now: Date) =>
  db`publishable_key_id is not null and settled_at is null and (status = 'active' or (status = 'created' and token_expires_at > ${now}))`;

/** How many live sessions were started with the key (admission's check, under the wallet lock). */
export async function countLiveKeySessions(db: Db, keyId: string, now: Date): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from voice_sessions where publishable_key_id = ${keyId} and ${liveWithKey(db, now)}`;
  return row.n;
}

/** A live browser session, with what its key budget's lease is made of (rebuilding the Redis sets). */
export interface KeySlotHolder {
  id: string;
  publishable_key_id: string;
  token_expires_at: Date;
  max_duration_seconds: number;
}

export async function listKeySlotHolders(db: Db, now: Date): Promise<KeySlotHolder[]> {
  return db<KeySlotHolder[]>`
    select id, publishable_key_id, token_expires_at, max_duration_seconds from voice_sessions where ${liveWithKey(db, now)}`;
}
