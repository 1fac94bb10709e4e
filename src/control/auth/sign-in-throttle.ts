import { createHash } from 'node:crypto';
import type { AppContext } from '../../shared/app-context.js';
import { errors } from '../../shared/errors.js';
import { noteRedisFailure, redisUsable } from '../../shared/redis.js';
import type { HashLane } from '../../shared/crypto/password.js';
import { deviceCookieHeader, issueDeviceToken, readDeviceToken } from './device-cookie.js';

// Sign-in and sign-up throttling, counted in Redis so every api process shares it. Login
// attempts are counted per account and per client address for 15 minutes; past a free allowance
// each further attempt locks that account or address for twice as long as the last (1 s, 2 s,
// 4 s, … up to 15 minutes), and a locked login is refused with 429 before any password hashing.
// A success clears the account's count. Sign-ups are capped per address and per e-mail per hour.
// Redis answering slowly or not at all never blocks sign-in: the throttle then lets requests
// through (fails open) after REDIS_WAIT_MS.
//
// Each login is also sorted into a hashing lane by signals a guesser lacks: a device cookie that
// this account issued to this browser (OWASP device cookies: such a device is judged by its own
// failures only, so guesses from elsewhere cannot lock its owner out), or an address this account
// signed in from before with no failure from it since, go to `trusted`; an earlier failure for the
// account, a few for the address, or a retry sooner than the Retry-After of a busy refusal, makes
// the login `suspect`; anything else is `unknown`.

export const FAILURE_WINDOW_MS = 15 * 60_000;
export const FREE_FAILURES_PER_ACCOUNT = 5;
export const FREE_FAILURES_PER_ADDRESS = 20;
/**
 * Attempts from one address that have not succeeded (in progress or failed) before its next
 * sign-in counts as suspect: a few, so people behind one shared address can sign in at once.
 */
export const ADDRESS_ATTEMPTS_BEFORE_SUSPECT = 3;
/** Failures a device cookie may have in the window before it is treated like any other client. */
export const FREE_FAILURES_PER_DEVICE = 5;
export const MAX_LOCK_MS = 15 * 60_000;
/** How long a successful sign-in keeps its address known for the account. */
export const KNOWN_ADDRESS_MS = 30 * 86_400_000;
export const SIGNUPS_PER_ADDRESS_PER_HOUR = 10;
export const SIGNUPS_PER_EMAIL_PER_HOUR = 5;
const REDIS_WAIT_MS = 250;
/** Retry-After (s) of a sign-in refused because too many are waiting to be hashed. */
export const BUSY_RETRY_AFTER_S = 1;

// Every attempt is counted when it starts (a success takes its count back), so a burst of
// concurrent guesses cannot all slip past the check before the first failure is recorded.
// KEYS: account attempts, account lock, address attempts, address lock, device attempts, known
// address, address refused as busy (an attempt that comes back before its Retry-After is suspect).
// ARGV: window ms, free per account, free per address, max lock ms, free per device, '1' when a
// device cookie came, address attempts before suspect.
// Returns {lock ms left (0 = go ahead), how the attempt stands: device | address | suspect | unknown}.
const ATTEMPT = `
local device = ARGV[6] == '1' and tonumber(redis.call('GET', KEYS[5]) or '0') < tonumber(ARGV[5])
if device then
  redis.call('INCR', KEYS[5])
  redis.call('PEXPIRE', KEYS[5], ARGV[1])
  return {0, 'device'}
end
local lock = math.max(redis.call('PTTL', KEYS[2]), redis.call('PTTL', KEYS[4]))
if lock > 0 then return {lock, 'locked'} end
local function count(counter, lockKey, free)
  local n = redis.call('INCR', counter)
  redis.call('PEXPIRE', counter, ARGV[1])
  if n > free then
    redis.call('SET', lockKey, '1', 'PX', math.floor(math.min(1000 * 2 ^ (n - free - 1), tonumber(ARGV[4]))))
  end
  return n - 1
end
local account = count(KEYS[1], KEYS[2], tonumber(ARGV[2]))
local address = count(KEYS[3], KEYS[4], tonumber(ARGV[3]))
if address == 0 and redis.call('EXISTS', KEYS[6]) == 1 then return {0, 'address'} end
if account > 0 or address >= tonumber(ARGV[7]) or redis.call('EXISTS', KEYS[7]) == 1 then return {0, 'suspect'} end
return {0, 'unknown'}
`;
// KEYS as above. ARGV: how the attempt stood, known address ms. A device's success clears the
// device's record; any other clears the account's and takes back its address count. Either way
// the address becomes known for the account.
const SUCCESS = `
if ARGV[1] == 'device' then
  redis.call('DEL', KEYS[5])
else
  redis.call('DEL', KEYS[1], KEYS[2])
  if tonumber(redis.call('GET', KEYS[3]) or '0') > 0 then redis.call('DECR', KEYS[3]) end
end
redis.call('SET', KEYS[6], '1', 'PX', ARGV[2])
return 1
`;
// KEYS as above. ARGV: free per account, free per address, how the attempt stood, ms the client
// was told to wait (0: none). An attempt that ended without a password verdict (database
// unavailable, hashing gate full) is taken back: the counts go down, and a lock goes when what is
// left no longer earns one; the address is marked until its Retry-After ends.
const UNDO = `
local function undo(counter, lockKey, free)
  if tonumber(redis.call('GET', counter) or '0') <= 0 then return end
  if redis.call('DECR', counter) <= free and lockKey then redis.call('DEL', lockKey) end
end
if ARGV[3] == 'device' then
  undo(KEYS[5], nil, 0)
else
  undo(KEYS[1], KEYS[2], tonumber(ARGV[1]))
  undo(KEYS[3], KEYS[4], tonumber(ARGV[2]))
end
if tonumber(ARGV[4]) > 0 then redis.call('SET', KEYS[7], '1', 'PX', ARGV[4]) end
return 1
`;
// KEYS: counter. ARGV: limit, window ms. Returns {count, pttl}.
const WINDOW = `
local n = redis.call('INCR', KEYS[1])
if n == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return {n, redis.call('PTTL', KEYS[1])}
`;

const emailKey = (email: string) => createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);

function keys(ctx: AppContext, account: string, address: string, device: string | null): string[] {
  // One hash tag: the scripts take the account's and the address's keys together (Redis Cluster).
  const p = `${ctx.redisPrefix}{signin}:`;
  return [
    `${p}fails:acct:${account}`,
    `${p}lock:acct:${account}`,
    `${p}fails:ip:${address}`,
    `${p}lock:ip:${address}`,
    `${p}fails:dev:${device ?? '-'}`,
    `${p}known:${account}:${address}`,
    `${p}busy:ip:${address}`,
  ];
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

export type SignInBasis = 'device' | 'address' | 'suspect' | 'unknown';

export interface SignInStanding {
  email: string;
  address: string;
  /** The device id of a valid device cookie for this account, if one came. */
  device: string | null;
  /** What the attempt was judged on (see the top of this file). */
  basis: SignInBasis;
  /** The hashing lane that follows from it. */
  lane: HashLane;
}

const LANE: Record<SignInBasis, HashLane> = { device: 'trusted', address: 'trusted', suspect: 'suspect', unknown: 'unknown' };

/**
 * Counts a login attempt before its password is checked: refuses (429 with Retry-After) when the
 * account or the address is locked (a trusted device only when its own failures lock it),
 * otherwise says which hashing lane the attempt goes to.
 */
export async function startSignIn(ctx: AppContext, email: string, address: string, cookieHeader?: string): Promise<SignInStanding> {
  const account = emailKey(email);
  const device = readDeviceToken(ctx, account, cookieHeader);
  const standing = (basis: SignInBasis): SignInStanding => ({ email, address, device, basis, lane: LANE[basis] });
  // A client that is not connected would queue the command until Redis returns: fail open at
  // once, still trusting a device cookie (it needs no Redis to check).
  const failOpen = standing(device ? 'device' : 'unknown');
  if (!redisUsable(ctx.boundedRedis)) return failOpen;
  const args = [...keys(ctx, account, address, device), FAILURE_WINDOW_MS, FREE_FAILURES_PER_ACCOUNT, FREE_FAILURES_PER_ADDRESS, MAX_LOCK_MS, FREE_FAILURES_PER_DEVICE, device ? '1' : '0', ADDRESS_ATTEMPTS_BEFORE_SUSPECT];
  const r = await bounded(ctx, ctx.boundedRedis.eval(ATTEMPT, 7, ...args) as Promise<[number, string]>);
  if (!r) return failOpen;
  if (r[0] > 0) throw errors.rateLimited(Math.ceil(r[0] / 1000), 'too many failed sign-ins; retry later');
  return standing(r[1] as SignInBasis);
}

/** The password was right: the account (or the device) starts afresh and the address becomes known. */
export async function recordSignInSuccess(ctx: AppContext, s: SignInStanding): Promise<void> {
  if (!redisUsable(ctx.boundedRedis)) return;
  await bounded(ctx, ctx.boundedRedis.eval(SUCCESS, 7, ...keys(ctx, emailKey(s.email), s.address, s.device), s.basis, KNOWN_ADDRESS_MS));
}

/**
 * The attempt got no verdict (database down, too many hashings in progress): it does not count as
 * a failure. `busy`: it was refused with Retry-After BUSY_RETRY_AFTER_S, and an attempt from the
 * same address before that ends goes to the suspects' lane (a client that honours it does not).
 */
export async function undoSignInAttempt(ctx: AppContext, s: SignInStanding, busy = false): Promise<void> {
  if (!redisUsable(ctx.boundedRedis)) return;
  const keysOf = keys(ctx, emailKey(s.email), s.address, s.device);
  await bounded(ctx, ctx.boundedRedis.eval(UNDO, 7, ...keysOf, FREE_FAILURES_PER_ACCOUNT, FREE_FAILURES_PER_ADDRESS, s.basis, busy ? BUSY_RETRY_AFTER_S * 1000 : 0));
}

/** A new device cookie for this account's browser (Set-Cookie value), after a successful sign-in. */
export function deviceCookieFor(ctx: AppContext, email: string, secure: boolean): string {
  return deviceCookieHeader(issueDeviceToken(ctx, emailKey(email)), secure);
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
