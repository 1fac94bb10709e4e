import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import uWS from 'uWebSockets.js';
import type { AppContext } from '../app-context.js';
import { isDraining, markDraining } from '../sessions/draining.js';
import { activateSession, CloseCode, NODE_LEASE_RENEW_MS, renewNodeLease } from '../sessions/lifecycle.js';
import { endSession, type EndSignal } from '../sessions/settlement.js';
import { ACTIVE_SLOT_LEASE_MS, renewSlots } from '../sessions/slots.js';
import { UWS_MAX_PAYLOAD_BYTES } from './control-frames.js';
import { Pacer } from './pacer.js';
import { VoiceSession, type SocketData } from './voice-session.js';

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
  const pacer = new Pacer(() => performance.now());

  const hooks = {
    ended(session: VoiceSession, signal: EndSignal) {
      sessions.delete(session.id);
      pacer.delete(session);
      const p = endSession(ctx, session.id, { ...signal, disconnectedAt: ctx.clock.now() })
        .catch((err) => log.error({ err, session_id: session.id }, 'settlement failed; the sweeper will settle it'))
        .finally(() => settling.delete(p));
      settling.add(p);
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
      activateSession(ctx, sessionId, token, nodeId).then(
        (act) => {
          if (!act.ok) return upgrade({ session: null, refusal: { code: act.code, reason: act.reason } });
          if (aborted) {
            // The client left during activation: the call ends at once, with nothing connected.
            void endSession(ctx, act.session.id, { outcome: 'completed', endReason: 'caller_hangup' }).catch(() => {});
            return;
          }
          const session = new VoiceSession(act.session, performance.now(), hooks, log);
          sessions.set(session.id, session);
          upgrade({ session, refusal: null });
        },
        (err) => {
          log.error({ err }, 'media activation failed');
          upgrade({ session: null, refusal: { code: 1011, reason: 'internal error' } });
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
      data.session.attach(ws);
      pacer.add(data.session);
    },

    message: (ws, message, isBinary) => {
      ws.getUserData().session?.onMessage(message, isBinary);
      pacer.poke(performance.now());
    },

    close: (ws) => {
      const data = ws.getUserData();
      const session = data.session;
      data.session = null;
      session?.onClose();
    },
  });

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
