import { z } from 'zod';
import { getWallet, listLedger } from '../../../db/repos/wallet.js';
import { getOwnedProject } from '../../../db/repos/projects.js';
import type { ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Router } from '../../route.js';
import { LedgerEntry, LedgerQuery, WalletInfo } from '../../../contract/wallet.js';
import { ProjectPath } from '../../../contract/validation.js';

/** Contract §6: the wallet is console-door only. */
export function walletRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'wallet';
  const account = (caller: unknown) => (caller as ConsoleCaller).accountId;

  defineRoute(router, { method: 'GET', url: '/console/v2/projects/:project_id/wallet', operationId: 'getWallet', summary: 'Wallet balance', tag, auth: 'console', params: ProjectPath, status: 200, response: WalletInfo }, async ({ caller, params }) => {
    await getOwnedProject(ctx, account(caller), params.project_id);
    return getWallet(ctx, params.project_id);
  });

  defineRoute(router, { method: 'GET', url: '/console/v2/projects/:project_id/wallet/ledger', operationId: 'listLedgerEntries', summary: 'Wallet ledger, newest first', tag, auth: 'console', params: ProjectPath, query: LedgerQuery, status: 200, response: z.array(LedgerEntry) }, async ({ caller, params, query }) => {
    await getOwnedProject(ctx, account(caller), params.project_id);
    return listLedger(ctx, params.project_id, query.limit, query.offset);
  });
}
