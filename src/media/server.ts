import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import { isDraining, markDraining } from '../sessions/draining.js';
import { activateSession, CloseCode, NODE_LEASE_RENEW_MS, renewNodeLease, type RefusalCode } from '../sessions/lifecycle.js';
import { endSession, type EndSignal } from '../sessions/settlement.js';
import { ACTIVE_SLOT_LEASE_MS, renewSlots } from '../sessions/slots.js';
import type { TranscriptEntry } from '../contract/events.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { CallPipeline } from './call-pipeline.js';
import { BrowserTransport, type SocketData } from './browser-transport.js';
import { UWS_MAX_PAYLOAD_BYTES } from '../contract/control-frames.js';
import { Pacer } from './pacer.js';
import { openPipeline, PipelineUnavailable, type AgentPipelineFactory, type PipelineKind } from './pipelines.js';
import type { MediaTransport } from './transport.js';
import { VoiceSession } from './voice-session.js';

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
}

export type CallStart = { ok: true; session: VoiceSession } | { ok: false; code: RefusalCode | 1011; reason: string };

/** How a transport turns an authorised connection into a running call. */
export interface CallStarter {
  /** Activates the session (single-use token) and builds its pipeline; the call starts on `attach`. */
  start(activate: () => ReturnType<typeof activateSession>): Promise<CallStart>;
  /** The transport is open: pacing and the conversation begin. */
  attach(session: VoiceSession, transport: MediaTransport): void;
  /** Ends a started call whose transport never opened (the client left during activation). */
  abandon(session: VoiceSession): void;
}

/**
 * The media socket on uWebSockets.js: `/v2/voice/sessions/:id/stream?token=`. The upgrade is
 * accepted first and refused with the spec's close code, because WebSocket clients see close
 * codes but not HTTP statuses.
 */
export async function startMediaServer(ctx: AppContext, opts: MediaServerOptions): Promise<MediaServer> {
  const log = ctx.log.child({ role: 'media' });
  const nodeId = opts.nodeId ?? randomUUID();
  const sessions = new Map<string, VoiceSession>();
  const settling = new Set<Promise<unknown>>();
  const now = () => performance.now();
  const pacer = new Pacer(now);
  const kind: PipelineKind = opts.pipeline ?? ctx.config.MEDIA_PIPELINE;
  const agentPipeline = opts.agentPipeline;
  if (kind === 'agent' && !agentPipeline && !opts.pipelineFactory) throw new Error('startMediaServer: agent calls need an agentPipeline factory');

  const settle = (sessionId: string, signal: EndSignal, transcript: TranscriptEntry[]) => {
    const p = endSession(ctx, sessionId, { ...signal, disconnectedAt: ctx.clock.now(), transcript })
      .catch((err) => log.error({ err, session_id: sessionId }, 'settlement failed; the sweeper will settle it'))
      .finally(() => settling.delete(p));
    settling.add(p);
  };

  const hooks = {
    ended(session: VoiceSession, signal: EndSignal, transcript: TranscriptEntry[]) {
      sessions.delete(session.id);
      pacer.delete(session);
      settle(session.id, signal, transcript);
    },
    kick(session: VoiceSession) {
      const at = session.pace(now());
      if (at >= 0) pacer.wait(session, at);
    },
    waiting(session: VoiceSession, atMs: number) {
      pacer.wait(session, atMs);
    },
    poke(nowMs: number) {
      pacer.poke(nowMs);
    },
    stalledMs(fromMs: number, toMs: number) {
      return pacer.stalledMs(fromMs, toMs);
    },
  };

  const calls: CallStarter = {
    async start(activate) {
      const act = await activate();
      if (!act.ok) return act;
      let pipeline;
      try {
        pipeline = opts.pipelineFactory
          ? await opts.pipelineFactory(act.session)
          : await openPipeline(ctx, act.session, kind, log, agentPipeline);
      } catch (err) {
        // The pipeline cannot start: the call fails at once with nothing billed (connected 0 s).
        const unavailable = err instanceof PipelineUnavailable;
        if (!unavailable) log.error({ err, session_id: act.session.id }, 'call pipeline failed');
        else log.warn({ session_id: act.session.id, reason: err.message }, 'provider pipeline unavailable');
        settle(act.session.id, { outcome: 'failed', endReason: unavailable ? 'provider_error' : 'service_error', disconnectedAt: ctx.clock.now() }, []);
        return unavailable
          ? { ok: false, code: CloseCode.pipelineUnavailable, reason: 'provider pipeline unavailable' }
          : { ok: false, code: 1011, reason: 'internal error' };
      }
      const session = new VoiceSession(act.session, now(), pipeline, hooks, log, now);
      sessions.set(session.id, session);
      return { ok: true, session };
    },
    attach(session, transport) {
      pacer.add(session);
      session.attach(transport);
    },
    abandon(session) {
      sessions.delete(session.id);
      session.onClose();
    },
  };

  const app = uWS.App();
  app.ws<SocketData>('/v2/voice/sessions/:id/stream', {
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
      let aborted = false;
      res.onAborted(() => {
        aborted = true;
      });
      const upgrade = (data: SocketData) => {
        if (aborted) return;
        res.cork(() => res.upgrade<SocketData>(data, key, protocol, extensions, context));
      };
      calls.start(() => activateSession(ctx, sessionId, token, nodeId)).then(
        (started) => {
          if (!started.ok) return upgrade({ session: null, transport: null, refusal: { code: started.code, reason: started.reason } });
          // The client left during activation: the call ends at once, as a hang-up.
          if (aborted) return calls.abandon(started.session);
          upgrade({ session: started.session, transport: null, refusal: null });
        },
        (err) => {
          log.error({ err }, 'media activation failed');
          upgrade({ session: null, transport: null, refusal: { code: 1011, reason: 'internal error' } });
        },
      );
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
      data.transport = new BrowserTransport(ws, data.session, row.encoding, row.sample_rate_in, row.sample_rate_out);
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

  const listenSocket = await new Promise<uWS.us_listen_socket>((resolve, reject) => {
    app.listen(opts.host, opts.port, (s) => (s ? resolve(s) : reject(new Error(`media socket cannot listen on ${opts.host}:${opts.port}`))));
  });
  const port = uWS.us_socket_local_port(listenSocket);

  // Lease renewal: proves this node is alive for its calls (crash recovery) and keeps their slots.
  let renewing: Promise<unknown> | null = null;
  const renewTimer = setInterval(() => {
    if (renewing || sessions.size === 0) return;
    const entries = [...sessions.values()].map((s) => ({ projectId: s.projectId, sessionId: s.id }));
    renewing = Promise.all([renewNodeLease(ctx, nodeId, entries.map((e) => e.sessionId)), renewSlots(ctx, entries, ctx.clock.now().getTime() + ACTIVE_SLOT_LEASE_MS)])
      .catch((err) => log.warn({ err }, 'lease renewal failed'))
      .finally(() => {
        renewing = null;
      });
  }, NODE_LEASE_RENEW_MS);
  renewTimer.unref();

  const idle = async () => {
    while (settling.size) await Promise.allSettled([...settling]);
  };

  let drained: Promise<void> | null = null;
  const drain = (graceMs: number) =>
    (drained ??= (async () => {
      markDraining(ctx);
      const deadline = performance.now() + graceMs;
      while (sessions.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(100, graceMs)));
      for (const s of [...sessions.values()]) s.end('completed', 'service_restart', CloseCode.restarting);
      await idle();
      clearInterval(renewTimer);
      pacer.stop();
      uWS.us_listen_socket_close(listenSocket);
      log.info({ node_id: nodeId }, 'media socket drained');
    })());

  log.info({ port, node_id: nodeId, draining: isDraining(ctx) }, 'media socket listening');
  return { port, nodeId, sessions, drain, idle };
}
