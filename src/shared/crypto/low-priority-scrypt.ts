import { Worker } from 'node:worker_threads';

// scrypt on a thread of its own at a lower CPU priority (nice 10; on Linux the nice value is per
// thread). Suspected password guesses hash here, so on a busy machine a flood of them cannot slow
// the other sign-ins' hashing on libuv's pool: the scheduler gives those the CPU first, and the
// low-priority thread still gets what is left over.
// One thread, one hashing at a time (the gate in front never asks for more); it ends after a
// second with nothing to do, so an idle process holds no extra thread.

export const LOW_PRIORITY_NICE = 10;

// Plain CommonJS so it runs the same from source (tsx) and from the build.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
const { scryptSync } = require('node:crypto');
try { require('node:os').setPriority(${LOW_PRIORITY_NICE}); } catch {}
parentPort.on('message', ({ id, password, salt, keylen, options }) => {
  try {
    const key = scryptSync(password, Buffer.from(salt), keylen, options);
    parentPort.postMessage({ id, key });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err && err.message || err) });
  }
});
`;

interface Pending {
  resolve(key: Buffer): void;
  reject(err: Error): void;
}

/** One thread and the hashings sent to it: a thread that ends fails only its own, never its successor's. */
interface Thread {
  worker: Worker;
  pending: Map<number, Pending>;
  idleTimer?: NodeJS.Timeout;
}

let current: Thread | null = null;
let nextId = 0;
const IDLE_MS = 1000;

function start(): Thread {
  const worker = new Worker(SOURCE, { eval: true, execArgv: [] }); // plain JS: no loaders (tsx, test hooks) in it
  worker.unref(); // never keeps a process alive on its own
  const thread: Thread = { worker, pending: new Map() };
  worker.on('message', (m: { id: number; key?: Uint8Array; error?: string }) => {
    const p = thread.pending.get(m.id);
    thread.pending.delete(m.id);
    if (m.key) p?.resolve(Buffer.from(m.key));
    else p?.reject(new Error(m.error ?? 'scrypt failed'));
    if (thread.pending.size === 0) {
      thread.idleTimer = setTimeout(() => {
        if (current === thread && thread.pending.size === 0) {
          current = null; // retired: the next hashing starts a new thread while this one exits
          void worker.terminate();
        }
      }, IDLE_MS);
      thread.idleTimer.unref();
    }
  });
  const fail = (err: Error) => {
    if (current === thread) current = null; // the next call starts a new thread
    for (const p of thread.pending.values()) p.reject(err);
    thread.pending.clear();
  };
  worker.on('error', fail);
  worker.on('exit', (code) => fail(new Error(`low-priority scrypt thread exited with ${code}`)));
  return thread;
}

export function lowPriorityScrypt(password: string, salt: Buffer, keylen: number, options: object): Promise<Buffer> {
  const thread = (current ??= start());
  clearTimeout(thread.idleTimer);
  const id = nextId++;
  return new Promise<Buffer>((resolve, reject) => {
    thread.pending.set(id, { resolve, reject });
    thread.worker.postMessage({ id, password, salt, keylen, options });
  });
}
