import type { AppContext } from '../../shared/app-context.js';
import type { Tx } from '../../shared/sql.js';
import { bumpProjectRevision } from './projects.js';

// Carriers and provider accounts are both credentialed connections of a project: sealed
// credentials with a hint, an optional base_url, and a verification status that a change of
// either resets. Their edits, soft delete and credential reads are written here for both tables.

export type ConnectionTable = 'carriers' | 'provider_accounts';
export type VerificationStatus = 'unverified' | 'verified' | 'invalid';
export interface VerificationResult {
  status: VerificationStatus;
  detail: string | null;
}

export interface ConnectionChanges {
  label?: string;
  /** undefined leaves it; null goes back to the provider's own host. */
  baseUrl?: string | null;
}

/** The columns an edit sets; `credentials` are the new credential columns (sealed blob, hint, …), if any. */
export function connectionChanges(
  current: { label: string; base_url: string | null },
  changes: ConnectionChanges,
  credentials: Record<string, string> | null,
): Record<string, string | null> {
  const set: Record<string, string | null> = { label: changes.label ?? current.label, ...credentials };
  const { baseUrl } = changes;
  const newBaseUrl = baseUrl !== undefined && baseUrl !== current.base_url;
  if (newBaseUrl) set.base_url = baseUrl;
  // New credentials or a new host: what was verified is no longer what would be called.
  if (credentials || newBaseUrl) Object.assign(set, { status: 'unverified', status_detail: null });
  return set;
}

/** One connection's row: the table, the columns to return, its project and id. */
export interface ConnectionRow {
  table: ConnectionTable;
  columns: string[];
  projectId: string;
  id: string;
}

/** Writes `set` as the connection's next revision (and the project's); returns the row. */
export async function reviseConnection<T extends object>(tx: Tx, ref: ConnectionRow, set: Record<string, string | null>): Promise<T> {
  const [row] = await tx<T[]>`
    update ${tx(ref.table)} set ${tx(set)}, revision = revision + 1, updated_at = now()
    where id = ${ref.id} returning ${tx(ref.columns)}`;
  await bumpProjectRevision(tx, ref.projectId);
  return row;
}

/** Soft delete as the connection's last revision (and the project's next); the sealed credentials go. */
export async function dropConnection<T extends object>(tx: Tx, ref: ConnectionRow): Promise<T> {
  const [row] = await tx<T[]>`
    update ${tx(ref.table)}
    set deleted_at = now(), credentials_sealed = null, revision = revision + 1, updated_at = now()
    where id = ${ref.id} returning ${tx(ref.columns)}`;
  await bumpProjectRevision(tx, ref.projectId);
  return row;
}

/**
 * The decrypted credentials of a live connection, or null. They are sealed with the row's id
 * as associated data, so a blob copied to another row does not open. Never log them.
 */
export async function openCredentials<T>(ctx: AppContext, table: ConnectionTable, id: string): Promise<T | null> {
  const [row] = await ctx.sql<{ credentials_sealed: string | null }[]>`
    select credentials_sealed from ${ctx.sql(table)} where id = ${id} and deleted_at is null`;
  if (!row?.credentials_sealed) return null;
  return JSON.parse(ctx.keyring.decrypt(row.credentials_sealed, id)) as T;
}

/**
 * Stores a verification result, but only if the connection is still at `revision` (it did not
 * change while the provider was asked: a result for old credentials must not mark new ones
 * verified). The updated row, or undefined when it changed or is gone.
 */
export async function recordConnectionVerification<T extends object>(
  ctx: AppContext,
  ref: ConnectionRow,
  revision: number,
  result: VerificationResult,
): Promise<T | undefined> {
  const [row] = await ctx.sql<T[]>`
    update ${ctx.sql(ref.table)} set status = ${result.status}, status_detail = ${result.detail}, updated_at = now()
    where id = ${ref.id} and project_id = ${ref.projectId} and revision = ${revision} and deleted_at is null
    returning ${ctx.sql(ref.columns)}`;
  return row;
}
