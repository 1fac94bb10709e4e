import { randomUUID } from 'node:crypto';
import type { AppContext } from '../app-context.js';
import { twilioStreamRoute } from '../carriers/twilio/stream-route.js';
import { startMediaServer } from '../media/server.js';

/** The media role: the uWebSockets.js media socket (browsers and Twilio streams). Its stop function drains (DRAIN_GRACE_MS). */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const nodeId = randomUUID();
  const server = await startMediaServer(ctx, { port: ctx.config.MEDIA_PORT, host: ctx.config.HOST, nodeId, routes: [twilioStreamRoute(ctx, nodeId)] });
  return () => server.drain(ctx.config.DRAIN_GRACE_MS);
}
