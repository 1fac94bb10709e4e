import type { AppContext } from '../shared/app-context.js';
import { setSessionMediaNode, type SessionRow } from '../db/repos/voice-sessions.js';
import { sessionErrors } from '../shared/errors.js';
import { KEEP_SCRIPT, mediaNodesKey, mediaPendingKey, NODE_FORGET_MS, PICK_SCRIPT, type NodeEntry } from '../shared/media-node-layout.js';
import { noteRedisFailure, redisUsable } from '../shared/redis.js';

// Admission's side of the media node registry (the nodes write it: src/media/node-registry.ts).
// Every door (web, browser, outbound, inbound) picks the least-loaded live node with room that is
// not draining; the session's ws_url or stream URL is built from that node's public URL.
//
// Until a media node has ever registered in this Redis (a test running the api role alone, an
// old deployment mid-upgrade) admission keeps the single-node behaviour: PUBLIC_MEDIA_URL, no
// node recorded, any node may take the call.

/** Retry-After of the 503s below: nodes heartbeat every second, calls end all the time. */
export const MEDIA_RETRY_AFTER_SECONDS = 2;

export interface MediaTarget {
  /** Null: no registry yet (PUBLIC_MEDIA_URL, any node). */
  nodeId: string | null;
  /** The node's public media URL (ws_url / stream URL prefix), without a trailing slash. */
  url: string;
}

const trim = (url: string) => url.replace(/\/+$/, '');
const unavailable = () => sessionErrors.mediaNodesUnavailable(MEDIA_RETRY_AFTER_SECONDS);

async function guarded<T>(ctx: AppContext, work: () => Promise<T>): Promise<T> {
  if (!redisUsable(ctx.boundedRedis)) throw unavailable();
  try {
    return await work();
  } catch (err) {
    noteRedisFailure(ctx.boundedRedis);
    ctx.log.warn({ err: { message: (err as Error).message } }, 'media node registry unavailable');
    throw unavailable();
  }
}

/**
 * Picks a node for a new session and counts it as pending there for `pendingTtlMs` (until its
 * token expires). Throws 503 when every node is full, draining or dead, or Redis cannot answer.
 */
export async function pickMediaNode(ctx: AppContext, sessionId: string, pendingTtlMs: number): Promise<MediaTarget> {
  const picked = await guarded(ctx, async () => {
    const ids = await ctx.boundedRedis.hkeys(mediaNodesKey(ctx));
    if (ids.length === 0) return null;
    const keys = [mediaNodesKey(ctx), ...ids.map((id) => mediaPendingKey(ctx, id))];
    return (await ctx.boundedRedis.eval(PICK_SCRIPT, keys.length, ...keys, sessionId, pendingTtlMs, NODE_FORGET_MS, ...ids)) as string[];
  });
  if (picked === null) return { nodeId: null, url: trim(ctx.config.PUBLIC_MEDIA_URL) };
  if (picked.length < 2) throw sessionErrors.noMediaCapacity(MEDIA_RETRY_AFTER_SECONDS);
  return { nodeId: picked[0], url: trim(picked[1]) };
}

/** A failed admission gives its pending place back (best effort: it expires with the token anyway). */
export async function releaseMediaNode(ctx: AppContext, target: MediaTarget, sessionId: string): Promise<void> {
  if (target.nodeId) await ctx.boundedRedis.zrem(mediaPendingKey(ctx, target.nodeId), sessionId);
}

/**
 * The node a session's media is to reach now, for a token issued after admission (the outbound
 * dial, an inbound webhook asked twice): the admitted node while it is live and not draining,
 * else a newly picked one, recorded on the session.
 */
export async function mediaTargetFor(ctx: AppContext, row: Pick<SessionRow, 'id' | 'media_node_id' | 'media_node_url'>, pendingTtlMs: number): Promise<MediaTarget> {
  if (row.media_node_id) {
    const nodeId = row.media_node_id;
    const url = await guarded(ctx, async () => (await ctx.boundedRedis.eval(KEEP_SCRIPT, 2, mediaNodesKey(ctx), mediaPendingKey(ctx, nodeId), nodeId, row.id, pendingTtlMs)) as string | null);
    if (url) return { nodeId, url: trim(url) };
  }
  const target = await pickMediaNode(ctx, row.id, pendingTtlMs);
  if (target.nodeId !== row.media_node_id) await setSessionMediaNode(ctx.sql, row.id, target.nodeId, target.nodeId ? target.url : null);
  return target;
}

export interface MediaNodeView extends NodeEntry {
  id: string;
  /** Sessions admitted to it whose media has not connected yet. */
  pending: number;
}

/** Every registered node as stored (operators and tests); `expires_ms` is Redis time. */
export async function listMediaNodes(ctx: AppContext): Promise<MediaNodeView[]> {
  const all = await ctx.boundedRedis.hgetall(mediaNodesKey(ctx));
  const out: MediaNodeView[] = [];
  for (const [id, raw] of Object.entries(all)) {
    const pending = await ctx.boundedRedis.zcard(mediaPendingKey(ctx, id));
    out.push({ id, pending, ...(JSON.parse(raw) as NodeEntry) });
  }
  return out;
}
