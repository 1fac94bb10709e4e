import type { AppContext } from '../../shared/app-context.js';
import { randomBase62, sha256Hex } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';
import type { Scope } from '../../contract/scopes.js';
import type { Db } from '../../shared/sql.js';

export interface ApiKeyInfo {
  id: string;
  name: string;
  scopes: Scope[];
  prefix: string;
  created_at: Date;
}

/** Creates a key; the plaintext is returned here once and only its SHA-256 is stored. */
export async function createApiKey(ctx: AppContext, projectId: string, name: string, scopes: Scope[]) {
  const key = `vk_${randomBase62(43)}`;
  const [row] = await ctx.sql<ApiKeyInfo[]>`
    insert into api_keys (project_id, name, scopes, prefix, key_hash)
    values (${projectId}, ${name}, ${scopes}, ${key.slice(0, 12)}, ${sha256Hex(key)})
    returning id, name, scopes, prefix, created_at`;
  return { ...row, key };
}

export async function listApiKeys(ctx: AppContext, projectId: string, limit: number, offset: number) {
  return ctx.sql<ApiKeyInfo[]>`
    select id, name, scopes, prefix, created_at from api_keys
    where project_id = ${projectId} and revoked_at is null
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function revokeApiKey(ctx: AppContext, projectId: string, keyId: string): Promise<ApiKeyInfo> {
  const [row] = await ctx.sql<ApiKeyInfo[]>`
    update api_keys set revoked_at = now() where id = ${keyId} and project_id = ${projectId} and revoked_at is null
    returning id, name, scopes, prefix, created_at`;
  if (!row) throw errors.notFound('API key not found');
  return row;
}

export interface LiveApiKey {
  id: string;
  /** Null for a key not scoped to a project. */
  project_id: string | null;
  scopes: Scope[];
  api_rpm: number | null;
  suspended: boolean | null;
}

/** The unrevoked key with this SHA-256, with its project's rate limit and suspension. */
export async function findLiveApiKey(db: Db, keyHash: string): Promise<LiveApiKey | undefined> {
  const [row] = await db<LiveApiKey[]>`
    select k.id, k.project_id, k.scopes, p.api_rpm, p.suspended
    from api_keys k left join projects p on p.id = k.project_id
    where k.key_hash = ${keyHash} and k.revoked_at is null`;
  return row;
}
