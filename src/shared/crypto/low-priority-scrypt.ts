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

let worker: Worker | null = null;
const pending = new Map<number, Pending>();
let nextId = 0;
let idleTimer: NodeJS.Timeout | undefined;
const IDLE_MS = 1000;

function start(): Worker {
  const w = new Worker(SOURCE, { eval: true, execArgv: [] }); // plain JS: no loaders (tsx, test hooks) in it
  w.unref(); // never keeps a process alive on its own
  w.on('message', (m: { id: number; key?: Uint8Array; error?: string }) => {
    const p = pending.get(m.id);
    pending.delete(m.id);
    if (m.key) p?.resolve(Buffer.from(m.key));
    else p?.reject(new Error(m.error ?? 'scrypt failed'));
    if (pending.size === 0) {
      idleTimer = setTimeout(() => {
        if (worker === w && pending.size === 0) {
          worker = null;
          void w.terminate();
        }
      }, IDLE_MS);
      idleTimer.unref();
    }
  });
  const fail = (err: Error) => {
    if (worker === w) worker = null; // the next call starts a new thread
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  w.on('error', fail);
  w.on('exit', (code) => fail(new Error(`low-priority scrypt thread exited with ${code}`))); // after terminate() nothing is pending
  return w;
}

export function lowPriorityScrypt(password: string, salt: Buffer, keylen: number, options: object): Promise<Buffer> {
  clearTimeout(idleTimer);
  worker ??= start();
  const id = nextId++;
  return new Promise<Buffer>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    worker!.postMessage({ id, password, salt, keylen, options });
  });
}
