import { randomUUID } from 'node:crypto';
import type { AppContext } from '../shared/app-context.js';
import { createConversation, type ConversationOptions } from '../conversation/index.js';
import { startMediaServer, type MediaServer, type MediaServerOptions } from '../media/server.js';
import { twilioStreamRoute } from '../media/twilio-stream-route.js';
import { telnyxStreamRoute } from '../media/telnyx-stream-route.js';
import { uwsFallbackReason } from '../media/uws-native.js';
import { createAdapters } from '../providers/registry.js';
import { timedAdapters } from './provider-timing.js';
import { mediaPublicUrl } from './media-url.js';
import type { MediaNodeMessage } from './media-supervisor.js';

export interface MediaNodeOptions extends Omit<MediaServerOptions, 'agentPipeline'> {
  /** How agent calls are built (tests and benchmarks inject providers). */
  conversation?: ConversationOptions;
}

/** A media server running the conversation engine: the engine is injected here, so media/ never imports it. */
export async function startMediaNode(ctx: AppContext, opts: MediaNodeOptions): Promise<MediaServer> {
  const fallback = uwsFallbackReason();
  if (fallback) throw new Error(`the media role cannot start: ${fallback}`);
  const { conversation = {}, ...server } = opts;
  // Provider latency for /metrics: the adapters (injected ones too) are timed as the engine uses them.
  const registry = { allowPrivateUrls: ctx.config.ALLOW_PRIVATE_URLS, ...conversation.registry };
  const adapterFactory = timedAdapters(conversation.adapterFactory ?? ((stages, credentials) => createAdapters(stages, credentials, registry)));
  const timed: ConversationOptions = { ...conversation, adapterFactory };
  return startMediaServer(ctx, { ...server, agentPipeline: (c, row, log) => createConversation(c, row, log, timed) });
}

/** The media role: the uWebSockets.js media socket (browsers and Twilio streams). Its stop function drains (DRAIN_GRACE_MS). */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const nodeId = randomUUID();
  const { PUBLIC_MEDIA_URL, MEDIA_CAPACITY } = ctx.config;
  // Registered for admission to pick (a child of the media supervisor gets its own URL already filled in).
  const register = { publicUrl: (port: number) => mediaPublicUrl(PUBLIC_MEDIA_URL, port, 0, 1), capacity: MEDIA_CAPACITY };
  const server = await startMediaNode(ctx, { port: ctx.config.MEDIA_PORT, host: ctx.config.HOST, nodeId, register, routes: [twilioStreamRoute(ctx, nodeId), telnyxStreamRoute(ctx, nodeId)] });
  // A supervised child tells its supervisor who it is, so its death takes it out of the registry at once.
  process.send?.({ type: 'media-node', nodeId } satisfies MediaNodeMessage);
  return () => server.drain(ctx.config.DRAIN_GRACE_MS);
}
