import type { AppContext } from '../../shared/app-context.js';
import { randomBase62, sha256Hex } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';
import type { Scope } from '../../contract/scopes.js';

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
