import { loadConfig } from './config/env.js';
import { environmentWithFile } from './config/env-file.js';
import { closeContext, createContext } from './context.js';
import { runRoles } from './roles/run.js';

// One entry point, three roles (api, media, worker); ROLES picks which run in this process.
async function main(): Promise<void> {
  const config = loadConfig(environmentWithFile());
  const ctx = await createContext(config);
  const stopRoles = await runRoles(ctx, config.ROLES);
  ctx.log.info({ roles: config.ROLES, port: config.PORT, media_port: config.MEDIA_PORT }, 'voice agent service started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'draining');
    await stopRoles();
    await closeContext(ctx);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(`voice agent service failed to start: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
