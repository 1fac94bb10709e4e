import { randomBytes } from 'node:crypto';
import type { Harness } from './harness.js';
import { createAccount } from '../../src/db/repos/accounts.js';
import { createProject } from '../../src/db/repos/projects.js';
import { createApiKey } from '../../src/db/repos/api-keys.js';
import { startFamily } from '../../src/db/repos/auth-tokens.js';
import { SCOPES, type Scope } from '../../src/contract/scopes.js';

export const PASSWORD = 'correct horse battery staple';

export interface Tenant {
  accountId: string;
  email: string;
  projectId: string;
  apiKey: string;
  accessToken: string;
  refreshToken: string;
  /** Headers for the console door. */
  bearer: { authorization: string };
  /** Headers for the machine door. */
  machine: { 'x-api-key': string };
}

/** A verified account with a project, an all-scopes API key and a console session. */
export async function createTenant(h: Harness, scopes: Scope[] = [...SCOPES]): Promise<Tenant> {
  const email = `dev-${randomBytes(5).toString('hex')}@example.com`;
  const account = await createAccount(h.ctx, email, PASSWORD, true);
  const project = await createProject(h.ctx, account.id, 'test project');
  const key = await createApiKey(h.ctx, project.id, 'test key', scopes);
  const pair = await startFamily(h.ctx, account.id);
  return {
    accountId: account.id,
    email,
    projectId: project.id,
    apiKey: key.key,
    accessToken: pair.access_token,
    refreshToken: pair.refresh_token,
    bearer: { authorization: `Bearer ${pair.access_token}` },
    machine: { 'x-api-key': key.key },
  };
}
