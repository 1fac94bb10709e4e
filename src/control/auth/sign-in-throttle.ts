import { createHash } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import { noteRedisFailure, redisUsable } from '../../shared/redis.js';

// Sign-in and sign-up throttling, counted in Redis so every api process shares it. Login
// attempts are counted per account and per client address for 15 minutes; past a free allowance
// each further attempt locks that account or address for twice as long as the last (1 s, 2 s,
// 4 s, … up to 15 minutes), and a locked login is refused with 429 before any password hashing.
// A success clears the account's count. Sign-ups are capped per address and per e-mail per hour.
// Redis answering slowly or not at all never blocks sign-in: the throttle then lets requests
// through (fails open) after REDIS_WAIT_MS.

export const FAILURE_WINDOW_MS = 15 * 60_000;
export const FREE_FAILURES_PER_ACCOUNT = 5;
export const FREE_FAILURES_PER_ADDRESS = 20;
export const MAX_LOCK_MS = 15 * 60_000;
export const SIGNUPS_PER_ADDRESS_PER_HOUR = 10;
export const SIGNUPS_PER_EMAIL_PER_HOUR = 5;
const REDIS_WAIT_MS = 250;

// Every attempt is counted when it starts (a success takes its count back), so a burst of
// concurrent guesses cannot all slip past the check before the first failure is recorded.
// KEYS: account attempts, account lock, address attempts, address lock.
// ARGV: window ms, free per account, free per address, max lock ms.
// Returns {lock ms left (0 = go ahead), account attempts before this one, address attempts before}.
const ATTEMPT = `
local lock = math.max(redis.call('PTTL', KEYS[2]), redis.call('PTTL', KEYS[4]))
if lock > 0 then return {lock, 0, 0} end
local function count(counter, lockKey, free)
  local n = redis.call('INCR', counter)
  redis.call('PEXPIRE', counter, ARGV[1])
  if n > free then
    redis.call('SET', lockKey, '1', 'PX', math.floor(math.min(1000 * 2 ^ (n - free - 1), tonumber(ARGV[4]))))
  end
  return n - 1
end
return {0, count(KEYS[1], KEYS[2], tonumber(ARGV[2])), count(KEYS[3], KEYS[4], tonumber(ARGV[3]))}
`;
// KEYS as above. A success clears the account's record and takes back its address count.
const SUCCESS = `
redis.call('DEL', KEYS[1], KEYS[2])
if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
return 1
`;
// KEYS as above. ARGV: free per account, free per address. An attempt that ended without a
// password verdict (database unavailable, hashing gate full) is taken back: the counts go down,
// and a lock goes when what is left no longer earns one.
const UNDO = `
local function undo(counter, lockKey, free)
  if tonumber(redis.call('GET', counter) or '0') <= 0 then return end
  if redis.call('DECR', counter) <= free then redis.call('DEL', lockKey) end
end
undo(KEYS[1], KEYS[2], tonumber(ARGV[1]))
undo(KEYS[3], KEYS[4], tonumber(ARGV[2]))
return 1
`;
// KEYS: counter. ARGV: limit, window ms. Returns {count, pttl}.
const WINDOW = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {n, redis.call('PTTL', KEYS[1])}
`;

const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);

function keys(ctx: AppContext, email: string, address: string): string[] {
  const p = `${ctx.redisPrefix}signin:`;
  const acct = emailKey(email);
  return [`${p}fails:acct:${acct}`, `${p}lock:acct:${acct}`, `${p}fails:ip:${address}`, `${p}lock:ip:${address}`];
}

async function bounded<T>(ctx: AppContext, work: Promise<T>): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => {
      noteRedisFailure(ctx.boundedRedis); // the next commands skip Redis for a moment
      resolve(null);
    }, REDIS_WAIT_MS);
  });
  try {
    return await Promise.race([work, late]);
  } catch (err) {
    noteRedisFailure(ctx.boundedRedis);
    ctx.log.warn({ err: { message: (err as Error).message } }, 'sign-in throttle unavailable; letting the request through');
    return null;
  } finally {
    clearTimeout(timer);
  }
}

export interface SignInStanding {
  /** An earlier failure from this account or address: its password check waits behind clean ones. */
  suspect: boolean;
}

/**
 * Counts a login attempt before its password is checked: refuses (429 with Retry-After) when the
 * account or the address is locked, otherwise says whether earlier attempts make it suspect.
 */
export async function startSignIn(ctx: AppContext, email: string, address: string): Promise<SignInStanding> {
  // A client that is not connected would queue the command until Redis returns: fail open at once.
  if (!redisUsable(ctx.boundedRedis)) return { suspect: false };
  const args = [...keys(ctx, email, address), FAILURE_WINDOW_MS, FREE_FAILURES_PER_ACCOUNT, FREE_FAILURES_PER_ADDRESS, MAX_LOCK_MS];
  const r = (await bounded(ctx, ctx.boundedRedis.eval(ATTEMPT, 4, ...args) as Promise<[number, number, number]>)) ?? [0, 0, 0];
  if (r[0] > 0) throw errors.rateLimited(Math.ceil(r[0] / 1000), 'too many failed sign-ins; retry later');
  return { suspect: r[1] > 0 || r[2] > 0 };
}

/** The password was right: the account starts afresh and the address gets this attempt back. */
export async function recordSignInSuccess(ctx: AppContext, email: string, address: string): Promise<void> {
  if (!redisUsable(ctx.boundedRedis)) return;
  await bounded(ctx, ctx.boundedRedis.eval(SUCCESS, 4, ...keys(ctx, email, address)));
}

/** The attempt got no verdict (database down, too many hashings in progress): it does not count as a failure. */
export async function undoSignInAttempt(ctx: AppContext, email: string, address: string): Promise<void> {
  if (!redisUsable(ctx.boundedRedis)) return;
  await bounded(ctx, ctx.boundedRedis.eval(UNDO, 4, ...keys(ctx, email, address), FREE_FAILURES_PER_ACCOUNT, FREE_FAILURES_PER_ADDRESS));
}

/** Counts a sign-up attempt; 429 with Retry-After past the hourly cap per address or per e-mail. */
export async function checkSignUp(ctx: AppContext, email: string, address: string): Promise<void> {
  if (!redisUsable(ctx.boundedRedis)) return;
  const p = `${ctx.redisPrefix}signup:`;
  const take = (key: string, limit: number) => bounded(ctx, ctx.boundedRedis.eval(WINDOW, 1, key, limit, 3_600_000) as Promise<[number, number]>);
  const [byAddress, byEmail] = await Promise.all([take(`${p}ip:${address}`, SIGNUPS_PER_ADDRESS_PER_HOUR), take(`${p}email:${emailKey(email)}`, SIGNUPS_PER_EMAIL_PER_HOUR)]);
  for (const [hit, limit] of [[byAddress, SIGNUPS_PER_ADDRESS_PER_HOUR], [byEmail, SIGNUPS_PER_EMAIL_PER_HOUR]] as const) {
    if (hit && hit[0] > limit) throw errors.rateLimited(Math.max(1, Math.ceil(hit[1] / 1000)), 'too many sign-ups; retry later');
  }
}
