import type { AppContext } from '../shared/app-context.js';
import { DEAD_NODE_SCRIPT, HEARTBEAT_SCRIPT, mediaNodesKey, mediaPendingKey, NODE_HEARTBEAT_MS, NODE_TTL_MS } from '../shared/media-node-layout.js';
import { isDraining } from '../sessions/draining.js';

// This media node's entry in the registry admission reads (src/sessions/media-nodes.ts): its
// public URL, capacity, calls running and whether it drains, refreshed every second with an
// expiry, so a node that dies (kill -9) stops being picked within NODE_TTL_MS. Calls that
// connected since the last beat leave the node's pending set in the same script.

export interface NodeRegistration {
  nodeId: string;
  /** Where clients reach this node (ws_url prefix), e.g. wss://voice.example.com/media/0. */
  publicUrl: string;
  /** Calls this node takes at most (MEDIA_CAPACITY). */
  capacity: number;
  /** The calls running now, by session id. */
  live: () => ReadonlyMap<string, unknown>;
}

interface Log {
  info: (o: object, m: string) => void;
  warn: (o: object, m: string) => void;
}

export class NodeRegistry {
  private readonly timer: NodeJS.Timeout;
  /** Live calls already reported: only newer ones are taken out of the pending set. */
  private reported = new Set<string>();
  private draining = false;
  private beating: Promise<void> | null = null;
  private failing = false;

  constructor(
    private readonly ctx: AppContext,
    private readonly reg: NodeRegistration,
    private readonly log: Log,
  ) {
    this.timer = setInterval(() => void this.beat(), NODE_HEARTBEAT_MS);
    this.timer.unref();
    void this.beat();
    log.info({ node_id: reg.nodeId, public_url: reg.publicUrl, capacity: reg.capacity }, 'media node registered');
  }

  /** Admission stops picking this node at once. */
  async drain(): Promise<void> {
    this.draining = true;
    await this.beat(true);
  }

  /** Marks the entry expired (kept, so admission knows a registry exists) and stops beating. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.draining = true;
    await this.beating;
    await this.write(0).catch(() => {});
  }

  /** Writes the entry now; a beat already in flight is waited for first (`force`) or left alone. */
  async beat(force = false): Promise<void> {
    if (this.beating) {
      if (!force) return;
      await this.beating;
    }
    this.beating = this.write(NODE_TTL_MS)
      .then(() => {
        if (this.failing) this.log.info({ node_id: this.reg.nodeId }, 'media node heartbeat written again');
        this.failing = false;
      })
      .catch((err: unknown) => {
        if (!this.failing) this.log.warn({ err: { message: (err as Error).message }, node_id: this.reg.nodeId }, 'media node heartbeat failed (Redis); retrying every second');
        this.failing = true;
      })
      .finally(() => {
        this.beating = null;
      });
    await this.beating;
  }

  private async write(ttlMs: number): Promise<void> {
    const live = this.reg.live();
    const connected = [...live.keys()].filter((id) => !this.reported.has(id));
    const draining = this.draining || isDraining(this.ctx);
    const { nodeId, publicUrl, capacity } = this.reg;
    await this.ctx.boundedRedis.eval(HEARTBEAT_SCRIPT, 2, mediaNodesKey(this.ctx), mediaPendingKey(this.ctx, nodeId), nodeId, publicUrl, capacity, live.size, draining ? 1 : 0, ttlMs, ...connected);
    this.reported = new Set(live.keys());
  }
}

/** Takes a node that is known dead out of admission's choice at once (the media supervisor). */
export async function markNodeDead(ctx: AppContext, nodeId: string): Promise<boolean> {
  return (await ctx.boundedRedis.eval(DEAD_NODE_SCRIPT, 1, mediaNodesKey(ctx), nodeId)) === 1;
}
