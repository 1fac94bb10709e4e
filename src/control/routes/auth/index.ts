import type { AppContext } from '../../../shared/app-context.js';
import { findAccountByEmail, createAccount, sendVerification, verifyEmailToken } from '../../../db/repos/accounts.js';
import { revokeFamily, rotateRefresh, startFamily } from '../../../db/repos/auth-tokens.js';
import { DUMMY_PASSWORD_HASH, hashLaneHasRoom, verifyPassword } from '../../../shared/crypto/password.js';
import { GateFull } from '../../../shared/concurrency-gate.js';
import { BUSY_RETRY_AFTER_S, checkSignUp, deviceCookieFor, recordSignInSuccess, startSignIn, undoSignInAttempt } from '../../auth/sign-in-throttle.js';
import { errors } from '../../../shared/errors.js';
import type { ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Router } from '../../route.js';
import { AccountInfo, EmailVerifiedInfo, LoggedOutInfo, LoginBody, RefreshBody, SignupBody, TokenPairInfo, VerifyEmailBody } from '../../../contract/identity.js';

async function checkPassword(ctx: AppContext, email: string, password: string, address: string, cookieHeader: string | undefined) {
  const standing = await startSignIn(ctx, email, address, cookieHeader);
  const busy = async () => {
    // No verdict on the password: not a failed sign-in, but the client must wait its Retry-After.
    await undoSignInAttempt(ctx, standing, true);
    return errors.rateLimited(BUSY_RETRY_AFTER_S, 'too many sign-ins in progress; retry shortly');
  };
  // Refused at once when its lane is full, before the database is asked anything.
  if (!hashLaneHasRoom(standing.lane)) throw await busy();
  let account: Awaited<ReturnType<typeof findAccountByEmail>>;
  let ok: boolean;
  try {
    account = await findAccountByEmail(ctx, email);
    // Verify against a dummy hash when there is no account, so timing does not reveal which is wrong.
    ok = await verifyPassword(password, account?.password_hash ?? DUMMY_PASSWORD_HASH, standing.lane);
  } catch (err) {
    // Shed from the hashing queue, or no verdict for another reason (database down).
    if (err instanceof GateFull) throw await busy();
    await undoSignInAttempt(ctx, standing);
    throw err;
  }
  if (!account || !ok) throw errors.invalidCredentials();
  await recordSignInSuccess(ctx, standing);
  return account;
}

export function authRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'console auth';

  defineRoute(router, { method: 'POST', url: '/console/auth/signup', operationId: 'signUp', summary: 'Create an account', errors: [409, 429], tag, auth: 'none', body: SignupBody, status: 201, response: AccountInfo }, async ({ body, req }) => {
    await checkSignUp(ctx, body.email, req.ip);
    const account = await createAccount(ctx, body.email, body.password).catch((err: unknown) => {
      if (err instanceof GateFull) throw errors.rateLimited(BUSY_RETRY_AFTER_S, 'too many sign-ups in progress; retry shortly');
      throw err;
    });
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

  defineRoute(router, { method: 'POST', url: '/console/auth/login', operationId: 'logIn', summary: 'Log in', errors: [401, 429], tag, auth: 'none', body: LoginBody, status: 200, response: TokenPairInfo }, async ({ body, req, reply }) => {
    const account = await checkPassword(ctx, body.email, body.password, req.ip, req.headers.cookie);
    if (account.suspended) throw errors.accountSuspended();
    // This browser is now a known client of the account: its next sign-ins skip the guessers' queue.
    reply.header('set-cookie', deviceCookieFor(ctx, body.email, req.protocol === 'https'));
    return startFamily(ctx, account.id);
  });

  defineRoute(router, { method: 'POST', url: '/console/auth/refresh', operationId: 'refreshTokens', summary: 'Rotate the refresh token', errors: [401], tag, auth: 'none', body: RefreshBody, status: 200, response: TokenPairInfo }, async ({ body }) => rotateRefresh(ctx, body.refresh_token));

  defineRoute(router, { method: 'POST', url: '/console/auth/logout', operationId: 'logOut', summary: 'Revoke this session', tag, auth: 'console-unverified', status: 200, response: LoggedOutInfo }, async ({ caller }) => {
    await revokeFamily(ctx, (caller as ConsoleCaller).familyId);
    return { logged_out: true };
  });
}
