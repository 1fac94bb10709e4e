import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { ConcurrencyGate } from '../concurrency-gate.js';
import { lowPriorityScrypt } from './low-priority-scrypt.js';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

// scrypt N=2^15, r=8, p=1 (OWASP minimum); parameters are stored with the hash so they can rise later.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const MAXMEM = 64 * 1024 * 1024;

/**
 * Who a hashing is for, in priority order: the account's own client, a new password (sign-up), a
 * client with no history, a suspected guess.
 */
export type HashLane = 'trusted' | 'new' | 'unknown' | 'suspect';

/**
 * At most two scrypt runs at once (libuv's pool has four threads; the rest stay free for DNS and
 * files). Queued work starts in lane order; everything but trusted sign-ins shares one of the two
 * slots, so a trusted sign-in never waits behind a flood. The later lanes' short queues overflow
 * into GateFull (the route answers 429), their waiters are shed after a short wait (a guess is not
 * worth a long queue, and a person would rather retry), and when all 128 places are taken a
 * newcomer of an earlier lane sheds the newest waiter of a later one.
 */
const gate = new ConcurrencyGate<HashLane>(
  [
    { name: 'trusted', slots: 2, queue: 64 },
    { name: 'new', slots: 1, queue: 128 },
    { name: 'unknown', slots: 1, queue: 16, maxWaitMs: 2_000 },
    { name: 'suspect', slots: 1, queue: 4, maxWaitMs: 1_000 },
  ],
  128,
);

/** Whether a hashing in this lane would run or wait its turn now, rather than be refused (GateFull). */
export const hashLaneHasRoom = (lane: HashLane): boolean => gate.hasRoom(lane);

/** Suspected guesses hash on a lower-priority thread, so on a busy machine they cannot slow the others down. */
const scryptFor = (lane: HashLane) => (lane === 'suspect' ? lowPriorityScrypt : scrypt);

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await gate.run('new', () => scrypt(password, salt, KEY_BYTES, { N, r: R, p: P, maxmem: MAXMEM }));
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string, lane: HashLane = 'unknown'): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await gate.run(lane, () =>
    scryptFor(lane)(password, Buffer.from(salt, 'base64'), expected.length, {
      N: Number(n),
      r: Number(r),
      p: Number(p),
      maxmem: MAXMEM,
    }),
  );
  return timingSafeEqual(key, expected);
}

/** A hash to compare against when the account does not exist, so timing does not reveal it. */
export const DUMMY_PASSWORD_HASH = `scrypt$${N}$${R}$${P}$AAAAAAAAAAAAAAAAAAAAAA==$${Buffer.alloc(32).toString('base64')}`;
