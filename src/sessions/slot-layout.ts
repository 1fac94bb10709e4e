import type { AppContext } from '../shared/app-context.js';

// How concurrency slots are laid out in Redis: keys and lease lengths (shared by taking,
// renewing and rebuilding slots). Every key carries the `{slots}` hash tag: the take script
// reads the ready marker, the project's set and a publishable key's set together, and the
// rebuild writes all sets and the marker in one MULTI, so on a Redis Cluster they must share
// one slot (one shard serves every slot command: ample for admission rates, see docs/media.md).
const tag = (ctx: AppContext) => `${ctx.redisPrefix}{slots}:`;

/** A created session keeps its slot until its ws_url expires, plus this margin for the sweeper. */
export const CREATED_SLOT_MARGIN_MS = 30_000;
/** An active call's slot lease; the media node renews it every `SLOT_RENEW_MS`. */
export const ACTIVE_SLOT_LEASE_MS = 30_000;
export const SLOT_RENEW_MS = 10_000;

/** A project's slot set: member = session id, score = lease expiry (ms). */
export const slotKey = (ctx: AppContext, projectId: string): string => `${tag(ctx)}slots:${projectId}`;

/**
 * A publishable key's own budget (contract §11): member = browser session id, score = lease
 * expiry. The lease covers the session's whole possible life (connect window + max duration +
 * the margin), so no node renews it; settlement gives the member back as soon as the session ends.
 */
export const keySlotKey = (ctx: AppContext, keyId: string): string => `${tag(ctx)}key-slots:${keyId}`;

/** A browser session's lease in its key's budget: until its ws_url expires, plus its longest call, plus the margin. */
export const keySlotLeaseUntil = (tokenExpiresAt: Date, maxDurationSeconds: number): number =>
  tokenExpiresAt.getTime() + maxDurationSeconds * 1000 + CREATED_SLOT_MARGIN_MS;

/** Exists while the slot sets can be trusted; a Redis that lost its data lost this too. */
export const slotsReadyKey = (ctx: AppContext): string => `${tag(ctx)}slots-ready`;

/** Held by the one process rebuilding the sets. */
export const slotsRebuildLockKey = (ctx: AppContext): string => `${tag(ctx)}slots-rebuilding`;
