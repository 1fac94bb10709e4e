import type { AppContext } from './app-context.js';

// The media node registry in Redis (issue 21): media nodes write it (src/media/node-registry.ts),
// admission reads it (src/sessions/media-nodes.ts). Every key carries the `{media}` hash tag so
// that the scripts of both sides touch one Redis Cluster slot.
//
// - nodes: one hash, field = node id, value = JSON `NodeEntry`. A field is never deleted by its
//   node (a clean stop marks it expired), so "the hash exists" means "a node registered once" and
//   admission stops falling back to PUBLIC_MEDIA_URL.
// - pending:<node id>: sorted set of sessions admitted to the node whose media has not connected
//   yet, score = when the session's token expires (ms, Redis time). A node's load is its active
//   calls plus these, so concurrent admissions on several api nodes never overfill it between
//   heartbeats.

/** A media node writes its entry this often. */
export const NODE_HEARTBEAT_MS = 1_000;
/** An entry not refreshed for this long is a dead node: no admission picks it. */
export const NODE_TTL_MS = 5_000;
/** Entries of nodes dead for this long are removed by admission (node ids are per process start). */
export const NODE_FORGET_MS = 3_600_000;

export interface NodeEntry {
  url: string;
  capacity: number;
  active: number;
  draining: boolean;
  /** Redis time (ms) when the entry expires unless refreshed. */
  expires_ms: number;
}

export const mediaNodesKey = (ctx: AppContext): string => `${ctx.redisPrefix}{media}:nodes`;
export const mediaPendingKey = (ctx: AppContext, nodeId: string): string => `${ctx.redisPrefix}{media}:pending:${nodeId}`;

/** Redis time in ms inside a script (nodes and api hosts need not agree on the clock). */
const NOW = `local t = redis.call('TIME'); local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/**
 * Heartbeat. KEYS[1] nodes, KEYS[2] this node's pending set; ARGV node id, url, capacity, active,
 * draining (0/1), ttl ms, then sessions that connected since the last beat (out of pending).
 * The active count and the pending removals land together, so no call is counted twice or missed.
 */
export const HEARTBEAT_SCRIPT = `
${NOW}
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode({url = ARGV[2], capacity = tonumber(ARGV[3]), active = tonumber(ARGV[4]), draining = ARGV[5] == '1', expires_ms = now + tonumber(ARGV[6])}))
if #ARGV > 6 then redis.call('ZREM', KEYS[2], unpack(ARGV, 7)) end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
return now
`;

/**
 * A node known dead (its supervisor saw the process exit): its entry expires now and drains, so
 * no admission picks it in the NODE_TTL_MS its last beat still covered. KEYS[1] nodes; ARGV
 * node id. Returns 1 when the entry was there.
 */
export const DEAD_NODE_SCRIPT = `
${NOW}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return 0 end
local e = cjson.decode(raw)
e.expires_ms = now
e.draining = true
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
return 1
`;

/**
 * Picks the least-loaded live node with room that is not draining and counts the session as
 * pending there. KEYS[1] nodes, KEYS[2..] pending sets of the candidates; ARGV session id, pending
 * ttl ms, forget ms, then the candidates' node ids (in KEYS order). Load = (active + pending) /
 * capacity. Returns {node id, url} or {} when none has room; dead entries older than `forget` go.
 */
export const PICK_SCRIPT = `
${NOW}
local best, bestLoad, bestUsed = nil, nil, nil
for i = 2, #KEYS do
  local id = ARGV[i + 2]
  local raw = redis.call('HGET', KEYS[1], id)
  if raw then
    local e = cjson.decode(raw)
    if e.expires_ms > now and not e.draining then
      redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
      local used = e.active + redis.call('ZCARD', KEYS[i])
      if used < e.capacity then
        local load = used / e.capacity
        if best == nil or load < bestLoad or (load == bestLoad and used < bestUsed) then
          best, bestLoad, bestUsed = i, load, used
        end
      end
    elseif e.expires_ms + tonumber(ARGV[3]) < now then
      redis.call('HDEL', KEYS[1], id)
      redis.call('DEL', KEYS[i])
    end
  end
end
if best == nil then return {} end
redis.call('ZADD', KEYS[best], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[best], tonumber(ARGV[2]) + 60000)
local chosen = cjson.decode(redis.call('HGET', KEYS[1], ARGV[best + 2]))
return {ARGV[best + 2], chosen.url}
`;

/**
 * Keeps a session on the node it was admitted to when that node is still live and not draining
 * (a dial placed later, an inbound webhook asked again): KEYS[1] nodes, KEYS[2] its pending set;
 * ARGV node id, session id, pending ttl ms. Returns the node's url, or nil to pick another.
 */
export const KEEP_SCRIPT = `
${NOW}
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if not raw then return nil end
local e = cjson.decode(raw)
if e.expires_ms <= now or e.draining then return nil end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]) + 60000)
return e.url
`;
