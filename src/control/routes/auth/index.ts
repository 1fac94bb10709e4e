import type { AppContext } from '../../../shared/app-context.js';
import { findAccountByEmail, createAccount, sendVerification, verifyEmailToken } from '../../../db/repos/accounts.js';
import { revokeFamily, rotateRefresh, startFamily } from '../../../db/repos/auth-tokens.js';
import { DUMMY_PASSWORD_HASH, verifyPassword } from '../../../shared/crypto/password.js';
import { GateFull } from '../../../shared/concurrency-gate.js';
import { checkSignUp, recordSignInSuccess, startSignIn, undoSignInAttempt } from '../../auth/sign-in-throttle.js';
import { errors } from '../../../shared/errors.js';
import type { ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Router } from '../../route.js';
import { AccountInfo, EmailVerifiedInfo, LoggedOutInfo, LoginBody, RefreshBody, SignupBody, TokenPairInfo, VerifyEmailBody } from '../../../contract/identity.js';

async function checkPassword(ctx: AppContext, email: string, password: string, address: string) {
  const { suspect } = await startSignIn(ctx, email, address);
  let account: Awaited<ReturnType<typeof findAccountByEmail>>;
  let ok: boolean;
  try {
    account = await findAccountByEmail(ctx, email);
    // Verify against a dummy hash when there is no account, so timing does not reveal which is wrong.
    ok = await verifyPassword(password, account?.password_hash ?? DUMMY_PASSWORD_HASH, suspect ? 'second' : 'first');
  } catch (err) {
    // No verdict on the password (database down, hashing gate full): not a failed sign-in.
    await undoSignInAttempt(ctx, email, address);
    if (err instanceof GateFull) throw errors.rateLimited(1, 'too many sign-ins in progress; retry shortly');
    throw err;
  }
  if (!account || !ok) throw errors.invalidCredentials();
  await recordSignInSuccess(ctx, email, address);
  return account;
}

export function authRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'console auth';

  defineRoute(router, { method: 'POST', url: '/console/auth/signup', operationId: 'signUp', summary: 'Create an account', errors: [409, 429], tag, auth: 'none', body: SignupBody, status: 201, response: AccountInfo }, async ({ body, req }) => {
    await checkSignUp(ctx, body.email, req.ip);
    const account = await createAccount(ctx, body.email, body.password);
    await sendVerification(ctx, account);
    return { id: account.id, email: account.email, email_verified: account.email_verified };
  });

  const verify = async (token: string) => {
    if (!(await verifyEmailToken(ctx, token))) throw errors.notFound('verification token not found or expired');
    return { email_verified: true };
  };
  defineRoute(router, { method: 'POST', url: '/console/auth/verify-email', operationId: 'verifyEmail', summary: 'Verify an e-mail address', errors: [404], tag, auth: 'none', body: VerifyEmailBody, status: 200, response: EmailVerifiedInfo }, async ({ body }) => verify(body.token));
  // The link in the verification mail.
  defineRoute(router, { method: 'GET', url: '/console/auth/verify-email', operationId: 'verifyEmailLink', summary: 'Verify an e-mail address (the mailed link)', errors: [404], tag, auth: 'none', query: VerifyEmailBody, status: 200, response: EmailVerifiedInfo }, async ({ query }) => verify(query.token));

  defineRoute(router, { method: 'POST', url: '/console/auth/login', operationId: 'logIn', summary: 'Log in', errors: [401, 429], tag, auth: 'none', body: LoginBody, status: 200, response: TokenPairInfo }, async ({ body, req }) => {
    const account = await checkPassword(ctx, body.email, body.password, req.ip);
    if (account.suspended) throw errors.accountSuspended();
    return startFamily(ctx, account.id);
  });

  defineRoute(router, { method: 'POST', url: '/console/auth/refresh', operationId: 'refreshTokens', summary: 'Rotate the refresh token', errors: [401], tag, auth: 'none', body: RefreshBody, status: 200, response: TokenPairInfo }, async ({ body }) => rotateRefresh(ctx, body.refresh_token));

  defineRoute(router, { method: 'POST', url: '/console/auth/logout', operationId: 'logOut', summary: 'Revoke this session', tag, auth: 'console-unverified', status: 200, response: LoggedOutInfo }, async ({ caller }) => {
    await revokeFamily(ctx, (caller as ConsoleCaller).familyId);
    return { logged_out: true };
  });
}
