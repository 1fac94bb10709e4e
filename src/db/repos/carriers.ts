import { randomUUID } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';
import { carrierErrors } from '../../shared/errors.js';
import type { Db } from '../../shared/sql.js';
import { connectionChanges, dropConnection, openCredentials, recordConnectionVerification, reviseConnection } from './connections.js';
import type { ConnectionChanges, ConnectionRow, VerificationResult, VerificationStatus } from './connections.js';
import { bumpProjectRevision } from './projects.js';

// Carrier connections (contract §10). The credentials ({account_sid, auth_token}) are sealed
// under the keyring with the carrier id as associated data, so a sealed blob copied to another
// row does not decrypt. The auth token is never returned: only its last four characters.

export type CarrierKind = 'twilio' | 'telnyx';
export type CarrierStatus = VerificationStatus;

export interface CarrierInfo {
  id: string;
  project_id: string;
  kind: CarrierKind;
  label: string;
  base_url: string | null;
  /** Twilio's Account SID; null for Telnyx. */
  account_sid: string | null;
  /** Telnyx: the account's base64 Ed25519 public key (webhook signatures); null for Twilio. */
  public_key: string | null;
  /** Telnyx: the Call Control application whose webhook is ours, once created. */
  connection_id: string | null;
  token_hint: string;
  status: CarrierStatus;
  status_detail: string | null;
  revision: number;
  created_at: Date;
  updated_at: Date;
}

export interface TwilioCarrierCredentials {
  account_sid: string;
  auth_token: string;
}
export interface TelnyxCarrierCredentials {
  api_key: string;
  public_key: string;
}
export type CarrierCredentials = TwilioCarrierCredentials | TelnyxCarrierCredentials;

export const isTelnyxCredentials = (c: CarrierCredentials): c is TelnyxCarrierCredentials => 'api_key' in c;

const COLUMNS = ['id', 'project_id', 'kind', 'label', 'base_url', 'account_sid', 'public_key', 'connection_id', 'token_hint', 'status', 'status_detail', 'revision', 'created_at', 'updated_at'];

const rowOf = (projectId: string, carrierId: string): ConnectionRow => ({ table: 'carriers', columns: COLUMNS, projectId, id: carrierId });

export const tokenHint = (token: string) => token.slice(-4);
const seal = (ctx: AppContext, carrierId: string, c: CarrierCredentials) => ctx.keyring.encrypt(JSON.stringify(c), carrierId);
/** The columns new credentials set. */
const credentialColumns = (ctx: AppContext, carrierId: string, c: CarrierCredentials): Record<string, string> =>
  isTelnyxCredentials(c)
    ? { credentials_sealed: seal(ctx, carrierId, c), public_key: c.public_key, token_hint: tokenHint(c.api_key) }
    : { credentials_sealed: seal(ctx, carrierId, c), account_sid: c.account_sid, token_hint: tokenHint(c.auth_token) };

export async function createCarrier(
  ctx: AppContext,
  projectId: string,
  input: { kind: CarrierKind; label: string; credentials: CarrierCredentials; baseUrl: string | null },
): Promise<CarrierInfo> {
  const id = randomUUID();
  const values = { id, project_id: projectId, kind: input.kind, label: input.label, base_url: input.baseUrl, ...credentialColumns(ctx, id, input.credentials) };
  return ctx.sql.begin(async (tx) => {
    const [row] = await tx<CarrierInfo[]>`insert into carriers ${tx(values)} returning ${tx(COLUMNS)}`;
    await bumpProjectRevision(tx, projectId);
    return row;
  });
}

export async function listCarriers(ctx: AppContext, projectId: string, limit: number, offset: number): Promise<CarrierInfo[]> {
  return ctx.sql<CarrierInfo[]>`
    select ${ctx.sql(COLUMNS)} from carriers
    where project_id = ${projectId} and deleted_at is null
    order by created_at desc, id desc limit ${limit} offset ${offset}`;
}

/** A live carrier of the project, or 404 (another project's carrier is indistinguishable from none). */
export async function getCarrier(sql: Db, projectId: string, carrierId: string, opts: { lock?: boolean } = {}): Promise<CarrierInfo> {
  const [row] = opts.lock
    ? await sql<CarrierInfo[]>`
        select ${sql(COLUMNS)} from carriers
        where id = ${carrierId} and project_id = ${projectId} and deleted_at is null for update`
    : await sql<CarrierInfo[]>`
        select ${sql(COLUMNS)} from carriers
        where id = ${carrierId} and project_id = ${projectId} and deleted_at is null`;
  if (!row) throw carrierErrors.carrierNotFound();
  return row;
}

export type CarrierChanges = ConnectionChanges & { credentials?: CarrierCredentials };

export async function updateCarrier(ctx: AppContext, projectId: string, carrierId: string, changes: CarrierChanges): Promise<CarrierInfo> {
  const { credentials } = changes;
  return ctx.sql.begin(async (tx) => {
    const current = await getCarrier(tx, projectId, carrierId, { lock: true });
    const set = connectionChanges(current, changes, credentials === undefined ? null : credentialColumns(ctx, carrierId, credentials));
    return reviseConnection<CarrierInfo>(tx, rowOf(projectId, carrierId), set);
  });
}

/**
 * Soft delete; refused (409) while live numbers remain on the carrier, so no number is left
 * pointing at a connection that can no longer place or answer calls. The sealed credentials go.
 */
export async function deleteCarrier(ctx: AppContext, projectId: string, carrierId: string): Promise<CarrierInfo> {
  return ctx.sql.begin(async (tx) => {
    await getCarrier(tx, projectId, carrierId, { lock: true });
    const [{ n }] = await tx<{ n: number }[]>`
      select count(*)::int as n from carrier_numbers where carrier_id = ${carrierId} and deleted_at is null`;
    if (n > 0) throw carrierErrors.carrierHasNumbers(n);
    return dropConnection<CarrierInfo>(tx, rowOf(projectId, carrierId));
  });
}

/** The decrypted credentials of a live carrier, or null. Never log them, never queue them. */
export async function getCarrierCredentials(ctx: AppContext, carrierId: string): Promise<CarrierCredentials | null> {
  return openCredentials<CarrierCredentials>(ctx, 'carriers', carrierId);
}

/**
 * Stores a verification result, but only if the carrier did not change while Twilio was being
 * asked: a result for old credentials must not mark new ones verified.
 */
export async function recordCarrierVerification(ctx: AppContext, projectId: string, carrierId: string, revision: number, result: VerificationResult): Promise<CarrierInfo> {
  const row = await recordConnectionVerification<CarrierInfo>(ctx, rowOf(projectId, carrierId), revision, result);
  return row ?? getCarrier(ctx.sql, projectId, carrierId);
}

/** A live carrier by id alone (Twilio callbacks name the carrier in their path, not the project), or null. */
export async function findLiveCarrier(sql: Db, carrierId: string): Promise<CarrierInfo | null> {
  const [row] = await sql<CarrierInfo[]>`
    select ${sql(COLUMNS)} from carriers where id = ${carrierId} and deleted_at is null`;
  return row ?? null;
}

/** Telnyx: remembers the Call Control application created for this carrier. */
export async function setCarrierConnectionId(sql: Db, carrierId: string, connectionId: string | null): Promise<void> {
  await sql`update carriers set connection_id = ${connectionId} where id = ${carrierId}`;
}
