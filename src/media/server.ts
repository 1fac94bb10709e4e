import { randomUUID } from 'node:crypto';
import uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import { isDraining } from '../sessions/draining.js';
import { activateSession } from '../sessions/lifecycle.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import { UWS_MAX_PAYLOAD_BYTES } from '../contract/control-frames.js';
import type { CallPipeline } from './call-pipeline.js';
import { CallRegistry, type CallStarter } from './call-registry.js';
import { BrowserTransport, type BrowserSocketData } from './browser-transport.js';
import type { AgentPipelineFactory, PipelineKind } from './pipelines.js';
import type { VoiceSession } from './voice-session.js';
import { installHealthRoutes } from './health-routes.js';
import { MessageRatePolicy } from './message-rate.js';
import { browserOriginRefusal } from './browser-origin.js';
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

    upgrade: (res, req, context) => {
      const sessionId = req.getParameter(0) ?? '';
      const token = req.getQuery('token') ?? '';
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const origin = req.getHeader('origin');
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      const upgrade = (data: BrowserSocketData) => {
        if (aborted) return;
        res.cork(() => res.upgrade<BrowserSocketData>(data, key, protocol, extensions, context));
      };
      const failed = (err: unknown) => {
        log.error({ err }, 'media activation failed');
        upgrade({ session: null, transport: null, refusal: { code: 1011, reason: 'internal error' } });
      };
      const start = () =>
        calls.start(() => activateSession(ctx, sessionId, token, nodeId)).then((started) => {
          if (!started.ok) return upgrade({ session: null, transport: null, refusal: { code: started.code, reason: started.reason } });
          // The client left during activation: the call ends at once, as a hang-up.
          if (aborted) return calls.abandon(started.session);
          upgrade({ session: started.session, transport: null, refusal: null });
        }, failed);
      // A browser session's socket must come from an origin of its publishable key (4403).
      browserOriginRefusal(ctx, sessionId, token, origin).then((refusal) => (refusal ? upgrade({ session: null, transport: null, refusal }) : start()), failed);
    },

    open: (ws) => {
      const data = ws.getUserData();
      if (data.refusal || !data.session) {
        const r = data.refusal ?? { code: 1011, reason: 'internal error' };
        data.refusal = null;
        ws.end(r.code, r.reason);
        return;
      }
      const row = data.session.row;
      data.transport = new BrowserTransport(ws, data.session, row.encoding, row.sample_rate_in, row.sample_rate_out, messageRate, log);
      calls.attach(data.session, data.transport);
    },

    // Caller audio pokes the pacer from VoiceSession.onAudio (every transport's messages do).
    message: (ws, message, isBinary) => {
      ws.getUserData().transport?.onMessage(message, isBinary);
    },

    close: (ws) => {
      const data = ws.getUserData();
      const session = data.session;
      data.session = null;
      data.transport = null;
      session?.onClose();
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
