import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';

/**
 * The environment with an optional `.env` file under it (ENV_FILE names another): variables
 * already set win, so a deployment's own environment always overrides the file. The service and
 * the admin CLI both read configuration through this, so they see the same settings.
 */
export function environmentWithFile(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const path = env.ENV_FILE ?? '.env';
  if (!existsSync(path)) {
    if (env.ENV_FILE) throw new Error(`ENV_FILE names ${path}, which does not exist`);
    return env;
  }
  return { ...parseEnv(readFileSync(path, 'utf8')), ...env };
}
