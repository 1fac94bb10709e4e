import type { AppContext } from '../shared/app-context.js';
import {
  createProviderAccount,
  getProviderAccount,
  getProviderApiKey,
  invalidateVerifiedAccount,
  recordVerification,
  updateProviderAccount,
  type ProviderAccountInfo,
} from '../db/repos/provider-accounts.js';
import { assertStorableText } from '../contract/text.js';
import { errors, type FieldError } from '../shared/errors.js';
import { needsCredentials, type Provider } from '../contract/catalogue.js';
import { outboundUrlProblem } from './url.js';
import { verifyProvider } from './verify/index.js';

// Rules that zod cannot express on one field: which providers take a key or a base_url,
// and where a base_url may point.

function baseUrlErrors(ctx: AppContext, provider: Provider, baseUrl: string | null | undefined): FieldError[] {
  if (baseUrl === undefined || baseUrl === null) return [];
  if (provider === 'local') return [{ loc: ['body', 'base_url'], msg: 'the local provider runs on this machine and takes no base_url', type: 'value_error' }];
  const problem = outboundUrlProblem(baseUrl, ctx.config.ALLOW_PRIVATE_URLS);
  return problem ? [{ loc: ['body', 'base_url'], msg: `base_url ${problem}`, type: 'value_error' }] : [];
}

function credentialErrors(provider: Provider, sent: boolean, creating: boolean): FieldError[] {
  if (!needsCredentials(provider) && sent) {
    return [{ loc: ['body', 'credentials'], msg: 'the local provider needs no credentials', type: 'value_error' }];
  }
  if (needsCredentials(provider) && creating && !sent) return [{ loc: ['body', 'credentials'], msg: 'field required', type: 'missing' }];
  return [];
}

export async function createAccount(
  ctx: AppContext,
  projectId: string,
  body: { provider: Provider; label: string; credentials?: { api_key: string }; base_url?: string | null },
): Promise<ProviderAccountInfo> {
  assertStorableText(body);
  const problems = [...credentialErrors(body.provider, body.credentials !== undefined, true), ...baseUrlErrors(ctx, body.provider, body.base_url)];
  if (problems.length) throw errors.validation(problems);
  return createProviderAccount(ctx, projectId, {
    provider: body.provider,
    label: body.label,
    apiKey: body.credentials?.api_key ?? null,
    baseUrl: body.base_url ?? null,
  });
}

export async function updateAccount(
  ctx: AppContext,
  projectId: string,
  accountId: string,
  body: { label?: string; credentials?: { api_key: string }; base_url?: string | null },
): Promise<ProviderAccountInfo> {
  const current = await getProviderAccount(ctx.sql, projectId, accountId);
  assertStorableText(body);
  if (Object.keys(body).length === 0) throw errors.validation([{ loc: ['body'], msg: 'send at least one of label, credentials, base_url', type: 'value_error' }]);
  const problems = [...credentialErrors(current.provider, body.credentials !== undefined, false), ...baseUrlErrors(ctx, current.provider, body.base_url)];
  if (problems.length) throw errors.validation(problems);
  return updateProviderAccount(ctx, projectId, accountId, { label: body.label, apiKey: body.credentials?.api_key, baseUrl: body.base_url });
}

/** One live call to the provider; stores and returns the outcome. */
export async function verifyAccount(ctx: AppContext, projectId: string, accountId: string, opts: { timeoutMs?: number } = {}) {
  const account = await getProviderAccount(ctx.sql, projectId, accountId);
  let result;
  if (account.provider === 'local') {
    result = await verifyProvider('local', { apiKey: '', baseUrl: null, allowPrivate: true });
  } else {
    const apiKey = await getProviderApiKey(ctx, accountId);
    if (!apiKey) throw errors.notFound('provider account not found');
    result = await verifyProvider(account.provider, {
      apiKey,
      baseUrl: account.base_url,
      allowPrivate: ctx.config.ALLOW_PRIVATE_URLS,
      timeoutMs: opts.timeoutMs,
    });
  }
  ctx.log.info({ accountId, provider: account.provider, status: result.status }, 'provider account verified');
  return recordVerification(ctx, projectId, accountId, account.revision, result);
}

/**
 * The provider refused the account's key in the middle of a call (HTTP 401/403, an auth error
 * event): the account becomes `invalid` with `detail`, so new sessions are refused until the
 * customer fixes the key and verifies again. Only a `verified` account is changed: an account
 * updated meanwhile (unverified, new key) keeps its state. Never throws; true when it changed.
 */
export async function markAccountInvalid(ctx: AppContext, accountId: string, detail: string): Promise<boolean> {
  try {
    const changed = await invalidateVerifiedAccount(ctx.sql, accountId, detail.slice(0, 500));
    if (changed) ctx.log.warn({ accountId }, 'provider account marked invalid: the provider refused its key during a call');
    return changed;
  } catch (err) {
    ctx.log.warn({ err, accountId }, 'could not mark the provider account invalid');
    return false;
  }
}
