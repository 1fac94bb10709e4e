import type { AppContext } from '../shared/app-context.js';
import { projectExists } from '../db/repos/projects.js';
import { creditWallet } from '../db/repos/wallet.js';

/** Admin: credits a project's wallet (CLI `wallet-credit`). Returns the new balance as a decimal string. */
export async function walletCredit(ctx: AppContext, projectId: string, nanoUsd: bigint): Promise<{ balance_nano_usd: string }> {
  if (nanoUsd <= 0n) throw new Error('--nano-usd must be a positive integer');
  if (!(await projectExists(ctx.sql, projectId))) throw new Error('project not found');
  const balance = await creditWallet(ctx, projectId, nanoUsd);
  return { balance_nano_usd: balance.toString() };
}
