import { randomUUID } from 'node:crypto';
import uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import { isDraining } from '../sessions/draining.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import { UWS_MAX_PAYLOAD_BYTES } from '../contract/control-frames.js';
import type { CallPipeline } from './call-pipeline.js';
import { CallRegistry, type CallStarter } from './call-registry.js';
import { BrowserStream, type BrowserSocketData } from './browser-stream.js';
import type { AgentPipelineFactory, PipelineKind } from './pipelines.js';
import type { VoiceSession } from './voice-session.js';
import { installHealthRoutes } from './health-routes.js';
import { MessageRatePolicy } from './message-rate.js';
import { NodeRegistry } from './node-registry.js';

export interface MediaServer {
  port: number;
  nodeId: string;
  sessions: ReadonlyMap<string, VoiceSession>;
  /** Stops admitting, waits up to `graceMs` for calls to end, ends the rest (1013), settles, closes. */
  drain(graceMs: number): Promise<void>;
  /** Settlements still in flight (tests). */
  idle(): Promise<void>;
}

export interface MediaServerOptions {
  port: number;
  host: string;
  nodeId?: string;
  /** `agent` runs the conversation engine; `echo` plays the caller back (load tests). Default: MEDIA_PIPELINE. */
  pipeline?: PipelineKind;
  /** Builds agent calls (the conversation engine, injected by the media role so media stays free of it). */
  agentPipeline?: AgentPipelineFactory;
  /** Routes of other transports (carrier media streams) on the same app. */
  routes?: ((app: uWS.TemplatedApp, calls: CallStarter) => void)[];
  /** Builds every call's pipeline instead of `pipeline` (tests inject scripted pipelines). */
  pipelineFactory?: (row: SessionRow) => CallPipeline | Promise<CallPipeline>;
  /** Registers the node for admission to pick (the media role; src/media/node-registry.ts). */
  register?: { publicUrl: (port: number) => string; capacity: number };
}

/**
 * The media socket on uWebSockets.js: `/v2/voice/sessions/:id/stream?token=`. The upgrade is
 * accepted first and refused with the spec's close code, because WebSocket clients see close
 * codes but not HTTP statuses. The calls themselves live in the CallRegistry.
 */
export async function startMediaServer(ctx: AppContext, opts: MediaServerOptions): Promise<MediaServer> {
  const log = ctx.log.child({ role: 'media' });
  const nodeId = opts.nodeId ?? randomUUID();
  const calls = new CallRegistry(ctx, log, {
    nodeId,
    pipeline: opts.pipeline ?? ctx.config.MEDIA_PIPELINE,
    agentPipeline: opts.agentPipeline,
    pipelineFactory: opts.pipelineFactory,
  });

  // Per-socket message rate limit (every message counts): over it, one `error` frame and close 1008.
  const messageRate = new MessageRatePolicy(ctx.config.MEDIA_MAX_MESSAGES_PER_SECOND, ctx.config.MEDIA_MESSAGE_BURST);

  const app = uWS.App();
  app.ws<BrowserSocketData>('/v2/voice/sessions/:id/stream', {
    maxPayloadLength: UWS_MAX_PAYLOAD_BYTES,
    maxBackpressure: 256 * 1024,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    compression: uWS.DISABLED,

    // Accepted at once; the session is activated after `open` (src/media/browser-stream.ts).
    upgrade: (res, req, context) => {
      const request = { sessionId: req.getParameter(0) ?? '', token: req.getQuery('token') ?? '', origin: req.getHeader('origin') };
      res.upgrade<BrowserSocketData>(
        { request, stream: null },
        req.getHeader('sec-websocket-key'),
        req.getHeader('sec-websocket-protocol'),
        req.getHeader('sec-websocket-extensions'),
        context,
      );
    },

    open: (ws) => {
      const data = ws.getUserData();
      const stream = new BrowserStream(ws, data.request, { ctx, calls, nodeId, messageRate, log });
      data.stream = stream;
      void stream.open();
    },

    // Caller audio pokes the pacer from VoiceSession.onAudio (every transport's messages do).
    message: (ws, message, isBinary) => {
      try {
        ws.getUserData().stream?.onMessage(message, isBinary);
      } catch (err) {
        // Socket callbacks never throw (uWS would tear the process's event loop state).
        log.warn({ err }, 'media message failed');
      }
    },

    close: (ws) => {
      const data = ws.getUserData();
      const stream = data.stream;
      data.stream = null;
      stream?.onClose();
    },
  });
  for (const route of opts.routes ?? []) route(app, calls);
  installHealthRoutes(app, ctx);

  let listenSocket: uWS.us_listen_socket;
  try {
    listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
      app.listen(opts.host, opts.port, (s) => (s ? resolve(s) : reject(new Error(`media socket cannot listen on ${opts.host}:${opts.port}`))));
    });
  } catch (err) {
    calls.stop();
    throw err;
  }
  const port = uWS.us_socket_local_port(listenSocket);
  const registry = opts.register ? new NodeRegistry(ctx, { nodeId, publicUrl: opts.register.publicUrl(port), capacity: opts.register.capacity, live: () => calls.sessions }, log) : null;

  let drained: Promise<void> | null = null;
  const drain = (graceMs: number) =>
    (drained ??= (async () => {
      await registry?.drain(); // admission stops sending calls here before the wait begins
      await calls.drain(graceMs);
      await registry?.stop();
      uWS.us_listen_socket_close(listenSocket);
      log.info({ node_id: nodeId }, 'media socket drained');
    })());

  log.info({ port, node_id: nodeId, draining: isDraining(ctx) }, 'media socket listening');
  return { port, nodeId, sessions: calls.sessions, drain, idle: () => calls.idle() };
}
