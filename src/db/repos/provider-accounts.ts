import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';
import type { Provider } from '../../contract/catalogue.js';
import { errors } from '../../shared/errors.js';
import type { Db } from '../../shared/sql.js';
import { connectionChanges, dropConnection, openCredentials, recordConnectionVerification, reviseConnection } from './connections.js';
import type { ConnectionChanges, ConnectionRow, VerificationResult, VerificationStatus } from './connections.js';
import { bumpProjectRevision, lockProject } from './projects.js';

// Bring-your-own-key provider accounts. The API key is sealed under the keyring with the
// account id as associated data (a sealed key moved to another row does not decrypt) and is
// never returned: only its last four characters (key_hint).

export type AccountStatus = VerificationStatus;

export interface ProviderAccountInfo {
  id: string;
  project_id: string;
  provider: Provider;
  label: string;
  base_url: string | null;
  status: AccountStatus;
  status_detail: string | null;
  key_hint: string;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = ['id', 'project_id', 'provider', 'label', 'base_url', 'status', 'status_detail', 'key_hint', 'revision', 'created_at', 'updated_at'];

const rowOf = (projectId: string, accountId: string): ConnectionRow => ({ table: 'provider_accounts', columns: COLUMNS, projectId, id: accountId });

export const keyHint = (apiKey: string) => apiKey.slice(-4);
const seal = (ctx: AppContext, accountId: string, apiKey: string) => ctx.keyring.encrypt(JSON.stringify({ api_key: apiKey }), accountId);

export async function createProviderAccount(
  ctx: AppContext,
  projectId: string,
  input: { provider: Provider; label: string; apiKey: string | null; baseUrl: string | null },
): Promise<ProviderAccountInfo> {
  const id = randomUUID();
  const sealed = input.apiKey === null ? null : seal(ctx, id, input.apiKey);
  return ctx.sql.begin(async (tx) => {
    const [row] = await tx<ProviderAccountInfo[]>`
      insert into provider_accounts (id, project_id, provider, label, base_url, credentials_sealed, key_hint)
      values (${id}, ${projectId}, ${input.provider}, ${input.label}, ${input.baseUrl}, ${sealed},
              ${input.apiKey === null ? '' : keyHint(input.apiKey)})
      returning ${tx(COLUMNS)}`;
    await bumpProjectRevision(tx, projectId);
    return row;
  });
}

export async function listProviderAccounts(ctx: AppContext, projectId: string, limit: number, offset: number) {
  return ctx.sql<ProviderAccountInfo[]>`
    select ${ctx.sql(COLUMNS)} from provider_accounts
    where project_id = ${projectId} and deleted_at is null
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
}

export async function getProviderAccount(sql: Db, projectId: string, accountId: string): Promise<ProviderAccountInfo> {
  const [row] = await sql<ProviderAccountInfo[]>`
    select ${sql(COLUMNS)} from provider_accounts
    where id = ${accountId} and project_id = ${projectId} and deleted_at is null`;
  if (!row) throw errors.notFound('provider account not found');
  return row;
}

/** Accounts by id within a project (deleted ones excluded), for pipeline validation. */
export async function findProviderAccounts(sql: Db, projectId: string, ids: string[]): Promise<Map<string, ProviderAccountInfo>> {
  if (ids.length === 0) return new Map();
  const rows = await sql<ProviderAccountInfo[]>`
    select ${sql(COLUMNS)} from provider_accounts
    where project_id = ${projectId} and deleted_at is null and id in ${sql(ids)}`;
  return new Map(rows.map((r) => [r.id, r]));
}

export async function updateProviderAccount(
  ctx: AppContext,
  projectId: string,
  accountId: string,
  changes: ConnectionChanges & { apiKey?: string },
): Promise<ProviderAccountInfo> {
  const { apiKey } = changes;
  return ctx.sql.begin(async (tx) => {
    const current = await getProviderAccount(tx, projectId, accountId);
    const newKey = apiKey === undefined ? null : { credentials_sealed: seal(ctx, accountId, apiKey), key_hint: keyHint(apiKey) };
    const set = connectionChanges(current, changes, newKey);
    return reviseConnection<ProviderAccountInfo>(tx, rowOf(projectId, accountId), set);
  });
}

/** Active agents of the project whose pipeline names the account. */
export async function agentsUsingAccount(sql: Db, projectId: string, accountId: string): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from agents a
    where a.project_id = ${projectId} and a.is_active
      and exists (select 1 from jsonb_each(a.pipeline_config) s where s.value->>'account_id' = ${accountId})`;
  return row.n;
}

/** Soft delete; refused while an active agent uses the account. The sealed key is dropped. */
export async function deleteProviderAccount(ctx: AppContext, projectId: string, accountId: string): Promise<ProviderAccountInfo> {
  return ctx.sql.begin(async (tx) => {
    await getProviderAccount(tx, projectId, accountId);
    // Lock the project's agents against a concurrent create naming this account.
    await lockProject(tx, projectId);
    const users = await agentsUsingAccount(tx, projectId, accountId);
    if (users > 0) {
      throw errors.conflict(`provider account is used by ${users} active agent${users === 1 ? '' : 's'}`);
    }
    return dropConnection<ProviderAccountInfo>(tx, rowOf(projectId, accountId));
  });
}

/** The decrypted API key of a live account, or null (`local`, or no such account). Never log it. */
export async function getProviderApiKey(ctx: AppContext, accountId: string): Promise<string | null> {
  const credentials = await openCredentials<{ api_key: string }>(ctx, 'provider_accounts', accountId);
  return credentials === null ? null : credentials.api_key;
}

/**
 * Records a verification result, but only if the account was not changed while the provider
 * was being asked (a result for old credentials must not mark new ones verified).
 */
export async function recordVerification(ctx: AppContext, projectId: string, accountId: string, revision: number, result: VerificationResult): Promise<ProviderAccountInfo> {
  const row = await recordConnectionVerification<ProviderAccountInfo>(ctx, rowOf(projectId, accountId), revision, result);
  return row ?? getProviderAccount(ctx.sql, projectId, accountId);
}

/**
 * A verified account the provider refused during a call becomes `invalid` with `detail`; an
 * account changed meanwhile keeps its state. True when it changed.
 */
export async function invalidateVerifiedAccount(db: Db, accountId: string, detail: string): Promise<boolean> {
  const rows = await db`
    update provider_accounts set status = 'invalid', status_detail = ${detail}, updated_at = now()
    where id = ${accountId} and status = 'verified' and deleted_at is null
    returning id`;
  return rows.length > 0;
}

/** Where a live account's provider is reached and whether it is verified; undefined when deleted or unknown. */
export async function findLiveAccountEndpoint(db: Db, accountId: string): Promise<{ base_url: string | null; status: AccountStatus } | undefined> {
  const [row] = await db<{ base_url: string | null; status: AccountStatus }[]>`
    select base_url, status from provider_accounts where id = ${accountId} and deleted_at is null`;
  return row;
}
