import { z } from 'zod';
import { deleteProviderAccount, getProviderAccount, listProviderAccounts } from '../../../db/repos/provider-accounts.js';
import { createAccount, updateAccount, verifyAccount } from '../../../providers/accounts.js';
import { loadOwnedProject, type ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Caller, type Router } from '../../route.js';
import { ProviderAccountCreateBody, ProviderAccountInfo, ProviderAccountUpdateBody } from '../../../contract/providers.js';
import { paging, ProjectPath } from '../../../contract/validation.js';

// Provider accounts are console-door only (contract §2).

const AccountPath = ProjectPath.extend({ id: z.uuid() });
const Paging = z.strictObject(paging);
const base = '/console/v2/projects/:project_id/provider-accounts';

export function providerAccountRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'provider accounts';
  // Ownership before anything about the body: another owner's project is a 404 whatever is sent.
  const authorize = async (caller: Caller, raw: Record<string, unknown>) => {
    const parsed = ProjectPath.safeParse({ project_id: raw.project_id });
    if (parsed.success) await loadOwnedProject(ctx, (caller as ConsoleCaller).accountId, parsed.data.project_id);
  };
  const common = { tag, auth: 'console' as const, authorize };
  const pid = (p: { project_id: string }) => p.project_id.toLowerCase();

  defineRoute(router, { ...common, method: 'POST', url: base, operationId: 'createProviderAccount', summary: 'Add a provider account', errors: [409], params: ProjectPath, body: ProviderAccountCreateBody, status: 201, response: ProviderAccountInfo }, async ({ params, body }) =>
    createAccount(ctx, pid(params), body));

  defineRoute(router, { ...common, method: 'GET', url: base, operationId: 'listProviderAccounts', summary: 'List provider accounts', params: ProjectPath, query: Paging, status: 200, response: z.array(ProviderAccountInfo) }, async ({ params, query }) =>
    listProviderAccounts(ctx, pid(params), query.limit, query.offset));

  defineRoute(router, { ...common, method: 'GET', url: `${base}/:id`, operationId: 'getProviderAccount', summary: 'Get a provider account', params: AccountPath, status: 200, response: ProviderAccountInfo }, async ({ params }) =>
    getProviderAccount(ctx.sql, pid(params), params.id));

  defineRoute(router, { ...common, method: 'PATCH', url: `${base}/:id`, operationId: 'updateProviderAccount', summary: 'Change a provider account (new credentials or base_url need verifying again)', errors: [409], params: AccountPath, body: ProviderAccountUpdateBody, status: 200, response: ProviderAccountInfo }, async ({ params, body }) =>
    updateAccount(ctx, pid(params), params.id, body));

  defineRoute(router, { ...common, method: 'DELETE', url: `${base}/:id`, operationId: 'deleteProviderAccount', summary: 'Delete a provider account (409 while an active agent uses it)', errors: [409], params: AccountPath, status: 200, response: ProviderAccountInfo }, async ({ params }) =>
    deleteProviderAccount(ctx, pid(params), params.id));

  defineRoute(router, { ...common, method: 'POST', url: `${base}/:id/verify`, operationId: 'verifyProviderAccount', summary: 'Check the credentials with one live call to the provider', errors: [409], params: AccountPath, status: 200, response: ProviderAccountInfo }, async ({ params }) =>
    verifyAccount(ctx, pid(params), params.id));
}
