import type { AppContext } from '../../app-context.js';

// Keyring rotation: after a new key is put first in KEYRING, re-seal every secret that is
// still under an older key. Batches run in their own transactions and skip rows another
// process holds, so this can run while the service serves traffic, and can be re-run.

export interface ReencryptCounts {
  provider_accounts: number;
  agents: number;
}

const BATCH = 100;

interface Target {
  table: 'provider_accounts' | 'agents';
  column: 'credentials_sealed' | 'webhook_secret_sealed';
}

const TARGETS: Target[] = [
  { table: 'provider_accounts', column: 'credentials_sealed' },
  { table: 'agents', column: 'webhook_secret_sealed' },
];

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

/** Re-seals every provider credential and agent webhook secret not under the keyring's first key. */
export async function reencryptAll(ctx: AppContext): Promise<ReencryptCounts> {
  const provider_accounts = await reencryptTable(ctx, TARGETS[0]);
  const agents = await reencryptTable(ctx, TARGETS[1]);
  ctx.log.info({ provider_accounts, agents, keyId: ctx.keyring.primaryId }, 're-encrypted secrets under the primary key');
  return { provider_accounts, agents };
}
