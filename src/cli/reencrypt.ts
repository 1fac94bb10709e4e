import type { AppContext } from '../shared/app-context.js';
import { lockSealedUnderOtherKeys, replaceSealed, SEALED_COLUMNS, type SealedColumn } from '../db/repos/sealed-secrets.js';

// Keyring rotation: after a new key is put first in KEYRING, re-seal every secret that is
// still under an older key. Batches run in their own transactions and skip rows another
// process holds, so this can run while the service serves traffic, and can be re-run.

const BATCH = 100;

export type ReencryptCounts = Record<SealedColumn['table'], number>;

async function reencryptTable(ctx: AppContext, target: SealedColumn): Promise<number> {
  const primary = ctx.keyring.primaryId;
  let total = 0;
  for (;;) {
    const done = await ctx.sql.begin(async (tx) => {
      const rows = await lockSealedUnderOtherKeys(tx, target, primary, BATCH);
      for (const row of rows) {
        // Each secret is sealed with its row id as associated data.
        let plain: string;
        try {
          plain = ctx.keyring.decrypt(row.sealed, row.id);
        } catch (err) {
          throw new Error(`cannot re-encrypt ${target.table} ${row.id} (key id ${ctx.keyring.keyIdOf(row.sealed)}): ${(err as Error).message}`);
        }
        await replaceSealed(tx, target, row.id, ctx.keyring.encrypt(plain, row.id));
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
  for (const target of SEALED_COLUMNS) counts[target.table] = await reencryptTable(ctx, target);
  ctx.log.info({ ...counts, keyId: ctx.keyring.primaryId }, 're-encrypted secrets under the primary key');
  return counts;
}
