import type { AppContext } from '../shared/app-context.js';

// Keyring rotation: after a new key is put first in KEYRING, re-seal every secret that is
// still under an older key. Batches run in their own transactions and skip rows another
// process holds, so this can run while the service serves traffic, and can be re-run.

const BATCH = 100;

// Every column that holds a secret sealed under the keyring (AAD = the row's id).
const TARGETS = [
  { table: 'provider_accounts', column: 'credentials_sealed' },
  { table: 'agents', column: 'webhook_secret_sealed' },
  { table: 'webhook_endpoints', column: 'secret_sealed' },
  { table: 'carriers', column: 'credentials_sealed' },
] as const;

type Target = (typeof TARGETS)[number];
export type ReencryptCounts = Record<Target['table'], number>;

async function reencryptTable(ctx: AppContext, { table, column }: Target): Promise<number> {
  const primary = ctx.keyring.primaryId;
  let total = 0;
  for (;;) {
    const done = await ctx.sql.begin(async (tx) => {
      const rows = await tx<{ id: string; sealed: string }[]>`
        select id, ${tx(column)} as sealed from ${tx(table)}
        where ${tx(column)} is not null and split_part(${tx(column)}, ':', 1) <> ${primary}
        order by id limit ${BATCH} for update skip locked`;
      for (const row of rows) {
        // Each secret is sealed with its row id as associated data.
        let plain: string;
        try {
          plain = ctx.keyring.decrypt(row.sealed, row.id);
        } catch (err) {
          throw new Error(`cannot re-encrypt ${table} ${row.id} (key id ${ctx.keyring.keyIdOf(row.sealed)}): ${(err as Error).message}`);
        }
        await tx`update ${tx(table)} set ${tx(column)} = ${ctx.keyring.encrypt(plain, row.id)} where id = ${row.id}`;
      }
      return rows.length;
    });
    total += done;
    if (done < BATCH) return total;
  }
}

/** Re-seals every stored secret (provider keys, agent and endpoint webhook secrets, carrier tokens) not under the first key. */
export async function reencryptAll(ctx: AppContext): Promise<ReencryptCounts> {
  const counts = {} as ReencryptCounts;
  for (const target of TARGETS) counts[target.table] = await reencryptTable(ctx, target);
  ctx.log.info({ ...counts, keyId: ctx.keyring.primaryId }, 're-encrypted secrets under the primary key');
  return counts;
}
