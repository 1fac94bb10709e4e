import type { AppContext } from '../../shared/app-context.js';
import { randomToken, sha256Hex } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';
import type { Db, Tx } from '../../shared/sql.js';

export const ACCESS_TTL_SECONDS = 900;
export const REFRESH_TTL_SECONDS = 30 * 24 * 3600;

export interface TokenPair {
  access_token: string;
  refresh_token: string;
  token_type: 'bearer';
  expires_in: number;
}

async function issuePair(ctx: AppContext, tx: Tx, familyId: string): Promise<TokenPair> {
  const access = randomToken(32);
  const refresh = randomToken(32);
  const now = ctx.clock.now().getTime();
  await tx`insert into auth_tokens (token_hash, family_id, kind, expires_at) values
    (${sha256Hex(access)}, ${familyId}, 'access', ${new Date(now + ACCESS_TTL_SECONDS * 1000)}),
    (${sha256Hex(refresh)}, ${familyId}, 'refresh', ${new Date(now + REFRESH_TTL_SECONDS * 1000)})`;
  return { access_token: access, refresh_token: refresh, token_type: 'bearer', expires_in: ACCESS_TTL_SECONDS };
}

/** A login starts a new token family. */
export async function startFamily(ctx: AppContext, accountId: string): Promise<TokenPair> {
  return ctx.sql.begin(async (tx) => {
    const [family] = await tx<{ id: string }[]>`insert into auth_families (account_id) values (${accountId}) returning id`;
    return issuePair(ctx, tx, family.id);
  });
}

/**
 * Rotates a refresh token. Presenting one that was already used means it leaked: the whole
 * family is revoked and the caller must log in again.
 */
export async function rotateRefresh(ctx: AppContext, refreshToken: string): Promise<TokenPair> {
  const outcome = await ctx.sql.begin(async (tx) => {
    const [row] = await tx<{ family_id: string; used_at: Date | null; expires_at: Date; revoked_at: Date | null; suspended: boolean }[]>`
      select t.family_id, t.used_at, t.expires_at, f.revoked_at, a.suspended
      from auth_tokens t join auth_families f on f.id = t.family_id join accounts a on a.id = f.account_id
      where t.token_hash = ${sha256Hex(refreshToken)} and t.kind = 'refresh'
      for update of t`;
    if (!row || row.revoked_at) return 'invalid' as const;
    if (row.used_at) {
      await tx`update auth_families set revoked_at = ${ctx.clock.now()} where id = ${row.family_id}`;
      return 'reused' as const;
    }
    if (row.expires_at <= ctx.clock.now()) return 'invalid' as const;
    if (row.suspended) return 'suspended' as const;
    await tx`update auth_tokens set used_at = ${ctx.clock.now()} where token_hash = ${sha256Hex(refreshToken)}`;
    return issuePair(ctx, tx, row.family_id);
  });
  if (outcome === 'invalid') throw errors.unauthenticated('invalid or expired refresh token');
  if (outcome === 'reused') throw errors.unauthenticated('refresh token reuse detected; session revoked');
  if (outcome === 'suspended') throw errors.accountSuspended();
  return outcome;
}

export async function revokeFamily(ctx: AppContext, familyId: string): Promise<void> {
  await ctx.sql`update auth_families set revoked_at = ${ctx.clock.now()} where id = ${familyId} and revoked_at is null`;
}

export interface AccessTokenOwner {
  family_id: string;
  account_id: string;
  suspended: boolean;
  email_verified: boolean;
}

/** The account behind a live access token (unexpired at `now`, family not revoked), or undefined. */
export async function findAccessTokenOwner(db: Db, tokenHash: string, now: Date): Promise<AccessTokenOwner | undefined> {
  const [row] = await db<AccessTokenOwner[]>`
    select f.id as family_id, a.id as account_id, a.suspended, a.email_verified
    from auth_tokens t
    join auth_families f on f.id = t.family_id
    join accounts a on a.id = f.account_id
    where t.token_hash = ${tokenHash} and t.kind = 'access'
      and t.expires_at > ${now} and f.revoked_at is null`;
  return row;
}
