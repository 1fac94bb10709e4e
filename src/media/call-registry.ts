import { performance } from 'node:perf_hooks';
import type { AppContext } from '../shared/app-context.js';
import { markDraining } from '../sessions/draining.js';
import { activateSession, CloseCode, type RefusalCode } from '../sessions/lifecycle.js';
import type { EndSignal } from '../sessions/settlement.js';
import { ACTIVE_SLOT_LEASE_MS, SLOT_RENEW_MS } from '../sessions/slots.js';
import { renewSlots } from '../sessions/slot-renewal.js';
import type { TranscriptEntry } from '../contract/events.js';
import type { SessionRow } from '../db/repos/voice-sessions.js';
import type { CallPipeline } from './call-pipeline.js';
import { Pacer } from './pacer.js';
import { openPipeline, PipelineUnavailable, type AgentPipelineFactory, type PipelineKind, type PipelineLog } from './pipelines.js';
import type { MediaTransport } from './transport.js';
import { VoiceSession, type SessionHooks } from './voice-session.js';
import { NodeLease } from './node-lease.js';
import { SettlementRetry } from './settlement-retry.js';
import { logCallEnd, logCallStart } from './call-log.js';
import { trackCalls } from '../metrics/media.js';

/** How often the registry looks after leases: renewals when due, calls whose lease is lost. */
const LEASE_TICK_MS = 1_000;
/** A drain waits this long past its grace for settlements the database has not taken yet. */
const DRAIN_SETTLE_WAIT_MS = 5_000;

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
  info: (o: object, m: string) => void;
  error: (o: object, m: string) => void;
}

/**
 * The calls this node runs, whatever their transport: it starts them (activation + pipeline),
 * paces them on one shared timer, keeps their node lease (Postgres) and their slots (Redis)
 * alive independently of each other, ends them itself if it cannot keep their lease, and
 * settles each once it ends (again and again while the database is down).
 */
export class CallRegistry implements CallStarter {
  private readonly live = new Map<string, VoiceSession>();
  private readonly settlements: SettlementRetry;
  private readonly lease: NodeLease;
  private readonly now = () => performance.now();
  private readonly pacer = new Pacer(this.now);
  private readonly hooks: SessionHooks;
  private readonly leaseTimer: NodeJS.Timeout;
  private slotsRenewing = false;
  private lastSlotRenewMs = 0;
  /** Stops /metrics reading this registry's calls. */
  private readonly untrack: () => void;

  constructor(
    private readonly ctx: AppContext,
    private readonly log: Log,
    private readonly opts: CallRegistryOptions,
  ) {
    if (opts.pipeline === 'agent' && !opts.agentPipeline && !opts.pipelineFactory) throw new Error('startMediaServer: agent calls need an agentPipeline factory');
    this.settlements = new SettlementRetry(ctx, log);
    this.lease = new NodeLease(ctx, opts.nodeId, log, (ids) => this.endGone(ids));
    const { pacer, now } = this;
    this.hooks = {
      ended: (session, signal, transcript) => {
        this.live.delete(session.id);
        pacer.delete(session);
        logCallEnd(log, session, signal, now());
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
    // Leases: the node lease proves this node is alive for its calls (crash recovery); slots count them.
    this.leaseTimer = setInterval(() => this.tendLeases(), LEASE_TICK_MS);
    this.leaseTimer.unref();
    this.untrack = trackCalls(() => this.live.values());
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
    const leaseUntil = act.session.lease_expires_at ?? ctx.clock.now();
    this.lease.add(session.id, leaseUntil.getTime());
    return { ok: true, session };
  }

  attach(session: VoiceSession, transport: MediaTransport): void {
    this.pacer.add(session);
    logCallStart(this.log, session);
    session.attach(transport);
  }

  abandon(session: VoiceSession): void {
    this.live.delete(session.id);
    session.onClose();
  }

  /** Resolves once no settlement is in flight or waiting for a retry (tests, drain). */
  async idle(): Promise<void> {
    await this.settlements.idle();
  }

  /** Stops admitting, waits up to `graceMs` for calls to end, ends the rest (1013), waits for their settlements, then stops. */
  async drain(graceMs: number): Promise<void> {
    markDraining(this.ctx);
    const deadline = performance.now() + graceMs;
    while (this.live.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, Math.min(100, graceMs)));
    for (const s of [...this.live.values()]) s.end('completed', 'service_restart', CloseCode.restarting);
    // Settlements waiting for the database get a bounded wait; the sweeper settles what is left.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.idle(), new Promise((r) => (timer = setTimeout(r, graceMs + DRAIN_SETTLE_WAIT_MS)))]);
    clearTimeout(timer);
    this.stop();
  }

  /** Stops the lease renewal, settlement retries and the pacer (after a drain, or when the socket never listened). */
  stop(): void {
    clearInterval(this.leaseTimer);
    this.untrack();
    this.settlements.stop();
    this.pacer.stop();
  }

  private settle(sessionId: string, signal: EndSignal, transcript: TranscriptEntry[]): void {
    // The call's own end time, kept across retries: connected seconds are what the caller had.
    this.settlements.settle(sessionId, { ...signal, disconnectedAt: this.ctx.clock.now(), transcript });
  }

  /** Once a second: the node lease (Postgres) and the slots (Redis), neither waiting on the other. */
  private tendLeases(): void {
    const nowMs = this.ctx.clock.now().getTime();
    // Ended calls whose settlement has not landed keep their lease, so the sweeper leaves them to us.
    const held = [...this.live.keys(), ...this.settlements.pendingIds];
    this.lease.retain(new Set(held));
    this.lease.renewIfDue(held, nowMs);
    this.endLost(nowMs);
    if (!this.slotsRenewing && this.live.size > 0 && nowMs - this.lastSlotRenewMs >= SLOT_RENEW_MS) this.renewSlots(nowMs);
  }

  /** Calls whose lease this node could not keep: the sweeper may settle them any moment, so their audio stops now. */
  private endLost(nowMs: number): void {
    const lost = this.lease.lost(nowMs).filter((id) => this.running(id));
    if (lost.length === 0) return;
    const failing = this.lease.failing;
    this.log.error(
      { calls: lost.length, renewal_failing_since: failing ? new Date(failing.sinceMs).toISOString() : null, err: failing ? { message: failing.error } : undefined },
      'node lease lost: Postgres could not be reached to renew it, so the sweeper may settle these calls; ending them now',
    );
    for (const id of lost) this.live.get(id)?.end('failed', 'service_error', 1011);
  }

  /** Calls Postgres says are settled (by the sweeper or an operator): nothing is billed past that, so they end. */
  private endGone(ids: string[]): void {
    const gone = ids.filter((id) => this.running(id));
    if (gone.length === 0) return;
    this.log.warn({ calls: gone.length, session_ids: gone }, 'calls settled elsewhere while running here; ending them');
    for (const id of gone) this.live.get(id)?.end('failed', 'service_error', 1011);
  }

  /** Live and not already ending. */
  private running(sessionId: string): boolean {
    const s = this.live.get(sessionId);
    return s !== undefined && !s.ending;
  }

  private renewSlots(nowMs: number): void {
    this.slotsRenewing = true;
    this.lastSlotRenewMs = nowMs;
    const entries = [...this.live.values()].map((s) => ({ projectId: s.projectId, sessionId: s.id }));
    renewSlots(this.ctx, entries, nowMs + ACTIVE_SLOT_LEASE_MS)
      .then(({ restored, unslotted }) => {
        if (restored.length) this.log.info({ calls: restored.length }, 'lost concurrency slots taken again');
        // The call goes on (it was admitted under the limit, which Postgres enforces at admission).
        if (unslotted.length) this.log.warn({ session_ids: unslotted }, 'lost concurrency slots not taken again: project at its limit');
      })
      .catch((err: unknown) => this.log.warn({ err: { message: err instanceof Error ? err.message : String(err) } }, 'slot renewal failed (Redis); the calls go on'))
      .finally(() => {
        this.slotsRenewing = false;
      });
  }
}
