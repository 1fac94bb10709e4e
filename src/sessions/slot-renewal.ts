import type { AppContext } from '../shared/app-context.js';
import { getProjectCallLimits, type ProjectCallLimits } from '../db/repos/projects.js';
import { rebuildSlots } from './slot-rebuild.js';
import { slotKey, slotsReadyKey } from './slot-layout.js';
import { takeSlot } from './slots.js';

// A media node renews the slots of the calls it runs. Renewal only extends members that are
// still there; a member that is gone (its lease lapsed while Redis was unreachable, or Redis
// lost its data) is taken again through the limit check, never added blindly, so renewal can
// never push a project past max_concurrent_sessions.

/** Calls renewed per command. */
const RENEW_BATCH = 1000;

// KEYS[1] set, KEYS[2] ready marker; ARGV[1] leaseUntil, ARGV[2..] members. Returns nil when the
// sets must be rebuilt first, else the members that were not there (the rest got the new lease).
const RENEW = `
if redis.call('EXISTS', KEYS[2]) == 0 then return nil end
local scores = redis.call('ZMSCORE', KEYS[1], unpack(ARGV, 2))
local held, missing = {'XX'}, {}
for i = 1, #scores do
  if scores[i] then
    held[#held + 1] = ARGV[1]
    held[#held + 1] = ARGV[i + 1]
  else
    missing[#missing + 1] = ARGV[i + 1]
  end
end
if #held > 1 then redis.call('ZADD', KEYS[1], unpack(held)) end
return missing
`;

export interface SlotEntry {
  projectId: string;
  sessionId: string;
}

export interface RenewResult {
  /** Lost slots taken again. */
  restored: string[];
  /** Lost slots that could not be taken again: the project is at its limit. */
  unslotted: string[];
}

async function renewBatch(ctx: AppContext, projectId: string, members: string[], leaseUntilMs: number): Promise<string[] | null> {
  return (await ctx.boundedRedis.eval(RENEW, 2, slotKey(ctx, projectId), slotsReadyKey(ctx), leaseUntilMs, ...members)) as string[] | null;
}

/** Renews the slots of these calls (one command per project and up to RENEW_BATCH calls). */
export async function renewSlots(ctx: AppContext, entries: readonly SlotEntry[], leaseUntilMs: number): Promise<RenewResult> {
  // One command per project rather than one per call: per-call commands blocked the media node's
  // event loop, and so its pacing, for 3–20 ms at 500–2,000 calls.
  const batches = new Map<string, string[][]>();
  for (const e of entries) {
    let list = batches.get(e.projectId);
    if (!list) batches.set(e.projectId, (list = [[]]));
    if (list[list.length - 1].length >= RENEW_BATCH) list.push([]);
    list[list.length - 1].push(e.sessionId);
  }
  const result: RenewResult = { restored: [], unslotted: [] };
  for (const [projectId, lists] of batches) {
    const missing: string[] = [];
    for (const members of lists) {
      let gone = await renewBatch(ctx, projectId, members, leaseUntilMs);
      if (gone === null) {
        await rebuildSlots(ctx); // the rebuild gives every active call its slot back
        gone = (await renewBatch(ctx, projectId, members, leaseUntilMs)) ?? [];
      }
      missing.push(...gone);
    }
    if (missing.length === 0) continue;
    const limits: ProjectCallLimits | undefined = await getProjectCallLimits(ctx.sql, projectId);
    const max = limits?.max_concurrent_sessions ?? 0; // a deleted project has no room
    for (const sessionId of missing) {
      const slot = await takeSlot(ctx, projectId, sessionId, max, leaseUntilMs);
      (slot.taken ? result.restored : result.unslotted).push(sessionId);
    }
  }
  return result;
}
