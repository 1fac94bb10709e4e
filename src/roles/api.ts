import type { AppContext } from '../shared/app-context.js';
import { buildApp } from '../control/app.js';

/** The api role: the Fastify control plane (both doors, /docs, /openapi.json) on PORT. */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const app = await buildApp(ctx);
  await app.listen({ port: ctx.config.PORT, host: ctx.config.HOST });
  return () => app.close();
}
