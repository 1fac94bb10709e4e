import type { AppContext } from '../../shared/app-context.js';
import { hashPassword } from '../../shared/crypto/password.js';
import { randomToken, sha256Hex } from '../../shared/crypto/tokens.js';
import { errors } from '../../shared/errors.js';

const VERIFY_TTL_MS = 48 * 3600_000;

export interface AccountRow {
  id: string;
  email: string;
  email_verified: boolean;
  suspended: boolean;
}

export async function createAccount(ctx: AppContext, email: string, password: string, verified = false): Promise<AccountRow> {
  const hash = await hashPassword(password);
  const rows = await ctx.sql<AccountRow[]>`
    insert into accounts (email, password_hash, email_verified) values (${email}, ${hash}, ${verified})
    on conflict do nothing
    returning id, email, email_verified, suspended`;
  if (rows.length === 0) throw errors.conflict('an account with this e-mail already exists');
  return rows[0];
}

export async function findAccountByEmail(ctx: AppContext, email: string) {
  const [row] = await ctx.sql`
    select id, email, password_hash, email_verified, suspended from accounts where lower(email) = lower(${email})`;
  return row as (AccountRow & { password_hash: string }) | undefined;
}

/** Issues a verification token and mails it; only its hash is stored. */
export async function sendVerification(ctx: AppContext, account: AccountRow): Promise<void> {
  const token = randomToken(32);
  const expires = new Date(ctx.clock.now().getTime() + VERIFY_TTL_MS);
  await ctx.sql`insert into email_verification_tokens (token_hash, account_id, expires_at)
    values (${sha256Hex(token)}, ${account.id}, ${expires})`;
  await ctx.mailer.send({
    to: account.email,
    subject: 'Verify your e-mail',
    text: [
      'Confirm your e-mail address by opening this link:',
      '',
      `${ctx.config.PUBLIC_BASE_URL}/console/auth/verify-email?token=${token}`,
      '',
      `Or send the token yourself: POST /console/auth/verify-email {"token": "${token}"}`,
      `The link works for ${VERIFY_TTL_MS / 3_600_000} hours.`,
    ].join('\n'),
  });
}

export async function verifyEmailToken(ctx: AppContext, token: string): Promise<boolean> {
  const rows = await ctx.sql`
    with used as (
      update email_verification_tokens set used_at = ${ctx.clock.now()}
      where token_hash = ${sha256Hex(token)} and used_at is null and expires_at > ${ctx.clock.now()}
      returning account_id)
    update accounts set email_verified = true, updated_at = now() where id in (select account_id from used)
    returning id`;
  return rows.length > 0;
}

/** Admin: sets a flag on an account by e-mail. */
export async function setAccountFlag(ctx: AppContext, email: string, flag: 'email_verified' | 'suspended', value: boolean) {
  const rows = await ctx.sql`
    update accounts set ${ctx.sql({ [flag]: value })}, updated_at = now() where lower(email) = lower(${email}) returning id`;
  if (rows.length === 0) throw errors.notFound('account not found');
  return rows[0].id as string;
}
