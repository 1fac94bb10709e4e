import { performance } from 'node:perf_hooks';
import type { AppContext } from '../shared/app-context.js';
import { markDraining } from '../sessions/draining.js';
import { activateSession, CloseCode, NODE_LEASE_RENEW_MS, renewNodeLease, type RefusalCode } from '../sessions/lifecycle.js';
import { endSession, type EndSignal } from '../sessions/settlement.js';
import { ACTIVE_SLOT_LEASE_MS, renewSlots } from '../sessions/slots.js';
import type { TranscriptEntry } from '../contract/events.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { CallPipeline } from './call-pipeline.js';
import { Pacer } from './pacer.js';
import { openPipeline, PipelineUnavailable, type AgentPipelineFactory, type PipelineKind, type PipelineLog } from './pipelines.js';
import type { MediaTransport } from './transport.js';
import { VoiceSession, type SessionHooks } from './voice-session.js';

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

export interface CallRegistryOptions {
  nodeId: string;
  pipeline: PipelineKind;
  agentPipeline?: AgentPipelineFactory;
  /** Builds every call's pipeline instead of `pipeline` (tests). */
  pipelineFactory?: (row: SessionRow) => CallPipeline | Promise<CallPipeline>;
}

interface Log extends PipelineLog {
  error: (o: object, m: string) => void;
}

/**
 * The calls this node runs, whatever their transport: it starts them (activation + pipeline),
 * paces them on one shared timer, keeps their node lease and slots alive, and settles each once
 * it ends.
 */
export class CallRegistry implements CallStarter {
  private readonly live = new Map<string, VoiceSession>();
  /** Settlements in flight. */
  private readonly settling = new Set<Promise<unknown>>();
  private readonly now = () => performance.now();
  private readonly pacer = new Pacer(this.now);
  private readonly hooks: SessionHooks;
  private readonly renewTimer: NodeJS.Timeout;
  private renewing: Promise<unknown> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Log,
    private readonly opts: CallRegistryOptions,
  ) {
    if (opts.pipeline === 'agent' && !opts.agentPipeline && !opts.pipelineFactory) throw new Error('startMediaServer: agent calls need an agentPipeline factory');
    const { pacer, now } = this;
    this.hooks = {
      ended: (session, signal, transcript) => {
        this.live.delete(session.id);
        pacer.delete(session);
        this.settle(session.id, signal, transcript);
      },
      kick(session) {
        const at = session.pace(now());
        if (at >= 0) pacer.wait(session, at);
      },
      waiting(session, atMs) {
        pacer.wait(session, atMs);
      },
      poke(nowMs) {
        pacer.poke(nowMs);
      },
      stalledMs(fromMs, toMs) {
        return pacer.stalledMs(fromMs, toMs);
      },
    };
    // Lease renewal: proves this node is alive for its calls (crash recovery) and keeps their slots.
    this.renewTimer = setInterval(() => this.renewLeases(), NODE_LEASE_RENEW_MS);
    this.renewTimer.unref();
  }

  /** The calls running now, by session id. */
  get sessions(): ReadonlyMap<string, VoiceSession> {
    return this.live;
  }

  async start(activate: () => ReturnType<typeof activateSession>): Promise<CallStart> {
    const act = await activate();
    if (!act.ok) return act;
    const { ctx, log, opts } = this;
    let pipeline;
    try {
      pipeline = opts.pipelineFactory ? await opts.pipelineFactory(act.session) : await openPipeline(ctx, act.session, opts.pipeline, log, opts.agentPipeline);
    } catch (err) {
      // The pipeline cannot start: the call fails at once with nothing billed (connected 0 s).
      const unavailable = err instanceof PipelineUnavailable;
      if (!unavailable) log.error({ err, session_id: act.session.id }, 'call pipeline failed');
      else log.warn({ session_id: act.session.id, reason: err.message }, 'provider pipeline unavailable');
      this.settle(act.session.id, { outcome: 'failed', endReason: unavailable ? 'provider_error' : 'service_error', disconnectedAt: ctx.clock.now() }, []);
      return unavailable
        ? { ok: false, code: CloseCode.pipelineUnavailable, reason: 'provider pipeline unavailable' }
        : { ok: false, code: 1011, reason: 'internal error' };
    }
    const session = new VoiceSession(act.session, this.now(), pipeline, this.hooks, log, this.now);
    this.live.set(session.id, session);
    return { ok: true, session };
  }

  attach(session: VoiceSession, transport: MediaTransport): void {
    this.pacer.add(session);
    session.attach(transport);
  }

  abandon(session: VoiceSession): void {
    this.live.delete(session.id);
    session.onClose();
  }

  /** Resolves once no settlement is in flight (tests, drain). */
  async idle(): Promise<void> {
    while (this.settling.size) await Promise.allSettled([...this.settling]);
  }

  /** Stops admitting, waits up to `graceMs` for calls to end, ends the rest (1013), waits for their settlements, then stops. */
  async drain(graceMs: number): Promise<void> {
    markDraining(this.ctx);
    const deadline = performance.now() + graceMs;
    while (this.live.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(100, graceMs)));
    for (const s of [...this.live.values()]) s.end('completed', 'service_restart', CloseCode.restarting);
    await this.idle();
    this.stop();
  }

  /** Stops the lease renewal and the pacer (after a drain, or when the socket never listened). */
  stop(): void {
    clearInterval(this.renewTimer);
    this.pacer.stop();
  }

  private settle(sessionId: string, signal: EndSignal, transcript: TranscriptEntry[]): void {
    const p = endSession(this.ctx, sessionId, { ...signal, disconnectedAt: this.ctx.clock.now(), transcript })
      .catch((err: unknown) => this.log.error({ err, session_id: sessionId }, 'settlement failed; the sweeper will settle it'))
      .finally(() => this.settling.delete(p));
    this.settling.add(p);
  }

  private renewLeases(): void {
    if (this.renewing || this.live.size === 0) return;
    const { ctx } = this;
    const entries = [...this.live.values()].map((s) => ({ projectId: s.projectId, sessionId: s.id }));
    this.renewing = Promise.all([
      renewNodeLease(ctx, this.opts.nodeId, entries.map((e) => e.sessionId)),
      renewSlots(ctx, entries, ctx.clock.now().getTime() + ACTIVE_SLOT_LEASE_MS),
    ])
      .catch((err: unknown) => this.log.warn({ err }, 'lease renewal failed'))
      .finally(() => {
        this.renewing = null;
      });
  }
}
