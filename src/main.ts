import { loadConfig } from './config/env.js';
import { environmentWithFile } from './config/env-file.js';
import { closeContext, createContext } from './context.js';
import { startLocalServices } from './bootstrap/local-services.js';
import { runRoles } from './roles/run.js';
import { createLogger } from './shared/logger.js';

// One entry point, three roles (api, media, worker); ROLES picks which run in this process.
async function main(): Promise<void> {
  const env = environmentWithFile();
  const log = createLogger(loadConfig(env).LOG_LEVEL);
  // First run: Postgres and Redis of our own when none is configured or answering (not in production).
  const local = await startLocalServices(env, log);
  const config = loadConfig({ ...env, ...local.env });
  const ctx = await createContext(config, { log }).catch(async (err: unknown) => {
    await local.stop();
    throw err;
  });
  const stopRoles = await runRoles(ctx, config.ROLES);
  ctx.log.info({ roles: config.ROLES, port: config.PORT, media_port: config.MEDIA_PORT }, 'voice agent service started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'draining');
    await stopRoles();
    await closeContext(ctx);
    await local.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  // A media process of the supervisor (MEDIA_PROCESSES > 1) never outlives it, even a kill -9 of it.
  if (process.env.MEDIA_SUPERVISED === '1') process.on('disconnect', () => void shutdown('supervisor gone'));
}

main().catch((err) => {
  console.error(`voice agent service failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
