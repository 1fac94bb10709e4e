import type { Tx } from '../../shared/sql.js';

// Every column that holds a secret sealed under the keyring (AAD = the row's id), for keyring
// rotation: rows still sealed under an older key are found and re-sealed in place.

export const SEALED_COLUMNS = [
  { table: 'provider_accounts', column: 'credentials_sealed' },
  { table: 'agents', column: 'webhook_secret_sealed' },
  { table: 'webhook_endpoints', column: 'secret_sealed' },
  { table: 'carriers', column: 'credentials_sealed' },
] as const;

export type SealedColumn = (typeof SEALED_COLUMNS)[number];

/** Up to `limit` rows whose secret is not sealed under `keyId`, locked; rows another transaction holds are skipped. */
export async function lockSealedUnderOtherKeys(tx: Tx, { table, column }: SealedColumn, keyId: string, limit: number) {
  return tx<{ id: string; sealed: string }[]>`
    select id, ${tx(column)} as sealed from ${tx(table)}
    where ${tx(column)} is not null and split_part(${tx(column)}, ':', 1) <> ${keyId}
    order by id limit ${limit} for update skip locked`;
}

export async function replaceSealed(tx: Tx, { table, column }: SealedColumn, id: string, sealed: string): Promise<void> {
  await tx`update ${tx(table)} set ${tx(column)} = ${sealed} where id = ${id}`;
}
