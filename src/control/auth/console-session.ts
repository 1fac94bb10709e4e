import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/crypto/tokens.js';

export interface ConsoleCaller {
  door: 'console';
  accountId: string;
  familyId: string;
}

/** Resolves `Authorization: Bearer <access token>`; suspended or unverified accounts get 403. */
export async function authenticateBearer(
  ctx: AppContext,
  header: string | undefined,
  opts: { allowUnverified?: boolean } = {},
): Promise<ConsoleCaller> {
  const match = header ? /^Bearer ([A-Za-z0-9_-]{20,200})$/i.exec(header) : null;
  if (!match) throw errors.unauthenticated('missing or malformed bearer token');
  const [row] = await ctx.sql`
    select f.id as family_id, a.id as account_id, a.suspended, a.email_verified
    from auth_tokens t
    join auth_families f on f.id = t.family_id
    join accounts a on a.id = f.account_id
    where t.token_hash = ${sha256Hex(match[1])} and t.kind = 'access'
      and t.expires_at > ${ctx.clock.now()} and f.revoked_at is null`;
  if (!row) throw errors.unauthenticated('invalid or expired access token');
  if (row.suspended) throw errors.accountSuspended();
  if (!row.email_verified && !opts.allowUnverified) throw errors.emailUnverified();
  return { door: 'console', accountId: row.account_id, familyId: row.family_id };
}

/** The project if the account owns it; another owner's project is indistinguishable from none. */
export async function loadOwnedProject(ctx: AppContext, accountId: string, projectId: string) {
  const [row] = await ctx.sql`select id, suspended from projects where id = ${projectId} and account_id = ${accountId}`;
  if (!row) throw errors.notFound('project not found');
  return row;
}
