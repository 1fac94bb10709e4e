import { randomBytes, scrypt as scryptCb, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { ConcurrencyGate, type Lane } from '../concurrency-gate.js';

const scrypt = promisify(scryptCb) as (pw: string, salt: Buffer, len: number, opts: object) => Promise<Buffer>;

// scrypt N=2^15, r=8, p=1 (OWASP minimum); parameters are stored with the hash so they can rise later.
const N = 1 << 15;
const R = 8;
const P = 1;
const KEY_BYTES = 32;
const MAXMEM = 64 * 1024 * 1024;

/**
 * At most two scrypt runs at once (libuv's pool has four threads; the rest stay free for DNS and
 * files), the others queued: sign-ins without recent failures (`first`) before suspected guesses
 * (`second`), which may hold only one of the two slots and whose shorter queue overflows into
 * GateFull (the route answers 429).
 */
const gate = new ConcurrencyGate(2, 1, { first: 256, second: 16 });

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await gate.run('first', () => scrypt(password, salt, KEY_BYTES, { N, r: R, p: P, maxmem: MAXMEM }));
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

export async function verifyPassword(password: string, stored: string, lane: Lane = 'first'): Promise<boolean> {
  const [kind, n, r, p, salt, hash] = stored.split('$');
  if (kind !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await gate.run(lane, () =>
    scrypt(password, Buffer.from(salt, 'base64'), expected.length, {
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
