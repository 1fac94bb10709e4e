import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import { sha256Hex } from '../../shared/crypto/tokens.js';
import type { Scope } from '../../contract/scopes.js';
import { findLiveApiKey } from '../../db/repos/api-keys.js';

export interface ApiKeyCaller {
  door: 'machine';
  apiKeyId: string;
  projectId: string;
  scopes: Scope[];
  apiRpm: number;
}

const KEY_SHAPE = /^vk_[0-9A-Za-z]{43}$/;

/** Resolves `X-Api-Key` to its project, or throws the spec's 401/403. Scope is checked by the caller. */
export async function authenticateApiKey(ctx: AppContext, header: string | string[] | undefined): Promise<ApiKeyCaller> {
  const presented = Array.isArray(header) ? header[0] : header;
  if (!presented) throw errors.missingApiKey();
  if (!KEY_SHAPE.test(presented)) throw errors.invalidApiKey();
  const row = await findLiveApiKey(ctx.sql, sha256Hex(presented));
  if (!row) throw errors.invalidApiKey();
  if (!row.project_id) throw errors.keyNotScoped();
  if (row.suspended) throw errors.projectUnavailable();
  return {
    door: 'machine',
    apiKeyId: row.id,
    projectId: row.project_id,
    scopes: row.scopes,
    apiRpm: row.api_rpm as number,
  };
}

export function requireScope(caller: ApiKeyCaller, scope: Scope): void {
  if (!caller.scopes.includes(scope)) throw errors.missingScope(scope);
}
