import { loadConfig } from './config/env.js';
import { closeContext, createContext } from './context.js';
import { buildApp } from './control/app.js';
import { markDraining } from './sessions/draining.js';

// One entry point, three roles (api, media, worker); ROLES picks which run in this process.
type Stop = () => Promise<void>;

async function main(): Promise<void> {
  const config = loadConfig();
  const ctx = await createContext(config);
  const stops: Stop[] = [];

  if (config.ROLES.includes('api')) {
    const app = await buildApp(ctx);
    await app.listen({ port: config.PORT, host: config.HOST });
    stops.push(() => app.close());
  }
  for (const role of config.ROLES.filter((r) => r !== 'api')) {
    const start = (await import(`./roles/${role}.js`)) as { start: (c: typeof ctx) => Promise<Stop> };
    stops.push(await start.start(ctx));
  }
  ctx.log.info({ roles: config.ROLES, port: config.PORT, media_port: config.MEDIA_PORT }, 'voice agent service started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    ctx.log.info({ signal }, 'draining');
    // From here session admission answers 503 and the media socket refuses with 1013; the
    // media role's stop waits DRAIN_GRACE_MS, ends the remaining calls (1013) and settles them.
    markDraining(ctx);
    // Later roles (media, worker) stop first so that in-flight calls settle before the API goes.
    for (const stop of stops.reverse()) await stop().catch((err) => ctx.log.error({ err }, 'stop failed'));
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
