import { z } from 'zod';
import type { AppContext } from '../shared/app-context.js';
import { createAccount, findAccountByEmail, setAccountFlag } from '../db/repos/accounts.js';
import { createApiKey } from '../db/repos/api-keys.js';
import { createProject, setProjectLimits } from '../db/repos/projects.js';
import { SCOPES, type Scope } from '../contract/scopes.js';
import { reencryptAll } from './reencrypt.js';
import { walletCredit } from '../sessions/wallet.js';
import { optionalInt, required } from './args.js';

type Flags = Map<string, string | true>;
export type Command = (ctx: AppContext, flags: Flags) => Promise<unknown>;

const uuid = (v: string, name: string) => {
  if (!z.uuid().safeParse(v).success) throw new Error(`--${name} must be a uuid`);
  return v;
};

async function accountIdByEmail(ctx: AppContext, email: string): Promise<string> {
  const row = await findAccountByEmail(ctx, email);
  if (!row) throw new Error('account not found');
  return row.id;
}

/** Admin commands of contract §1; each returns the JSON printed on stdout. */
export const commands: Record<string, Command> = {
  'create-account': async (ctx, f) => {
    const email = required(f, 'email');
    const password = required(f, 'password');
    if (!z.email().safeParse(email).success) throw new Error('--email is not an e-mail address');
    if (password.length < 12 || password.length > 256) throw new Error('--password must be 12 to 256 characters');
    const account = await createAccount(ctx, email, password, f.get('verified') === true);
    return { account_id: account.id };
  },
  'verify-email': async (ctx, f) => ({ account_id: await setAccountFlag(ctx, required(f, 'email'), 'email_verified', true) }),
  'suspend-account': async (ctx, f) => ({ account_id: await setAccountFlag(ctx, required(f, 'email'), 'suspended', true) }),
  'unsuspend-account': async (ctx, f) => ({ account_id: await setAccountFlag(ctx, required(f, 'email'), 'suspended', false) }),
  'create-project': async (ctx, f) => {
    const accountId = await accountIdByEmail(ctx, required(f, 'email'));
    const project = await createProject(ctx, accountId, required(f, 'name'));
    return { project_id: project.id };
  },
  'create-api-key': async (ctx, f) => {
    const projectId = uuid(required(f, 'project-id'), 'project-id');
    const scopes = required(f, 'scopes').split(',').map((s) => s.trim());
    const bad = scopes.filter((s) => !(SCOPES as readonly string[]).includes(s));
    if (bad.length) throw new Error(`unknown scope ${bad.join(', ')}; scopes are ${SCOPES.join(', ')}`);
    const name = typeof f.get('name') === 'string' ? (f.get('name') as string) : 'admin';
    const key = await createApiKey(ctx, projectId, name, [...new Set(scopes)] as Scope[]);
    return { id: key.id, key: key.key };
  },
  'wallet-credit': async (ctx, f) => {
    const amount = required(f, 'nano-usd');
    if (!/^[1-9]\d{0,30}$/.test(amount)) throw new Error('--nano-usd must be a positive whole number of nano-USD');
    return walletCredit(ctx, uuid(required(f, 'project-id'), 'project-id'), BigInt(amount));
  },
  /** After putting a new key first in KEYRING: re-seals every stored secret under it. */
  'reencrypt-secrets': async (ctx) => ({ key_id: ctx.keyring.primaryId, ...(await reencryptAll(ctx)) }),
  'set-limits': async (ctx, f) => {
    const project = await setProjectLimits(ctx, uuid(required(f, 'project-id'), 'project-id'), {
      api_rpm: optionalInt(f, 'api-rpm'),
      max_concurrent_sessions: optionalInt(f, 'max-concurrent-sessions'),
    });
    return { project_id: project.id, api_rpm: project.api_rpm, max_concurrent_sessions: project.max_concurrent_sessions, revision: project.revision };
  },
};
