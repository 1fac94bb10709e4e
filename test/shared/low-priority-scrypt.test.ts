import { scryptSync } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import t from 'tap';
import { LOW_PRIORITY_NICE, lowPriorityScrypt } from '../../src/shared/crypto/low-priority-scrypt.js';

// Suspected guesses hash on a thread of lower CPU priority: same keys as node's scrypt, and on
// Linux the thread doing it really runs niced while the rest of the process does not.

const options = { N: 1 << 14, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const salt = Buffer.from('0123456789abcdef');

const niceOfThreads = () =>
  readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]));

t.test('gives the same key as scrypt, one request after another and side by side', async (t) => {
  const keys = await Promise.all(['a', 'b', 'c'].map((pw) => lowPriorityScrypt(pw, salt, 32, options)));
  for (const [i, pw] of ['a', 'b', 'c'].entries()) t.same(keys[i], scryptSync(pw, salt, 32, options), `key for ${pw}`);
});

t.test('runs on a niced thread', { skip: !existsSync('/proc/self/task') && 'needs Linux /proc' }, async (t) => {
  await lowPriorityScrypt('x', salt, 32, options);
  const nices = niceOfThreads(); // the thread stays a second after its work
  t.ok(nices.includes(LOW_PRIORITY_NICE), `one thread at nice ${LOW_PRIORITY_NICE} (${nices.join(',')})`);
  t.equal(nices[0], 0, 'the main thread keeps its priority');
});

t.test('a bad request fails without ending the thread', async (t) => {
  await t.rejects(lowPriorityScrypt('x', salt, 32, { ...options, N: 3 }), 'N must be a power of two');
  t.equal((await lowPriorityScrypt('y', salt, 32, options)).length, 32);
});

t.test('a hashing asked for as the idle thread retires runs on the next thread and succeeds', async (t) => {
  await lowPriorityScrypt('x', salt, 32, options);
  // Same delay as the idle timer set when that answer arrived, so this fires just after it: the
  // old thread has been told to end but has not exited yet when the next hashing is asked for.
  const key = await new Promise<Buffer>((resolve, reject) =>
    setTimeout(() => lowPriorityScrypt('z', salt, 32, options).then(resolve, reject), 1000),
  );
  t.same(key, scryptSync('z', salt, 32, options));
});
