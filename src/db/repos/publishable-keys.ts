import type { AppContext } from '../../shared/app-context.js';
import { randomBase62, sha256Hex } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';

export interface PublishableKeyInfo {
  id: string;
  name: string;
  origins: string[];
  agent_ids: string[] | null;
  created_at: Date;
}

const COLUMNS = ['id', 'name', 'origins', 'agent_ids', 'created_at'];
const newKey = () => `pk_${randomBase62(43)}`;

export async function createPublishableKey(
  ctx: AppContext,
  projectId: string,
  input: { name: string; origins: string[]; agent_ids: string[] | null },
) {
  const key = newKey();
  const [row] = await ctx.sql<PublishableKeyInfo[]>`
    insert into publishable_keys (project_id, name, origins, agent_ids, key_hash)
    values (${projectId}, ${input.name}, ${input.origins}, ${input.agent_ids}, ${sha256Hex(key)})
    returning ${ctx.sql(COLUMNS)}`;
  return { ...row, key };
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
    select k.id, k.project_id, k.origins, k.agent_ids, p.suspended
    from publishable_keys k join projects p on p.id = k.project_id
    where k.key_hash = ${sha256Hex(presented)} and k.revoked_at is null`;
  return row as { id: string; project_id: string; origins: string[]; agent_ids: string[] | null; suspended: boolean } | undefined;
}
