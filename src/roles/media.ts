import type { AppContext } from '../app-context.js';
import { startMediaServer } from '../media/server.js';

/** The media role: the uWebSockets.js media socket. Its stop function drains (DRAIN_GRACE_MS). */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const server = await startMediaServer(ctx, { port: ctx.config.MEDIA_PORT, host: ctx.config.HOST });
  return () => server.drain(ctx.config.DRAIN_GRACE_MS);
}
