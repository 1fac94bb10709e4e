import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/crypto/tokens.js';
import { findAccessTokenOwner } from '../../db/repos/auth-tokens.js';
import { findOwnedProjectStatus } from '../../db/repos/projects.js';

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
  const row = await findAccessTokenOwner(ctx.sql, sha256Hex(match[1]), ctx.clock.now());
  if (!row) throw errors.unauthenticated('invalid or expired access token');
  if (row.suspended) throw errors.accountSuspended();
  if (!row.email_verified && !opts.allowUnverified) throw errors.emailUnverified();
  return { door: 'console', accountId: row.account_id, familyId: row.family_id };
}

/** The project if the account owns it; another owner's project is indistinguishable from none. */
export async function loadOwnedProject(ctx: AppContext, accountId: string, projectId: string) {
  const row = await findOwnedProjectStatus(ctx.sql, accountId, projectId);
  if (!row) throw errors.notFound('project not found');
  return row;
}
