import { connect } from 'node:net';

/** Whether something accepts a TCP connection on host:port within `timeoutMs` (it is closed again at once). */
export function answers(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls `check` until it is true; fails with `what` after `timeoutMs`, or at once when `gaveUp` says so. */
export async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs: number, gaveUp: () => string | null = () => null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    const reason = gaveUp();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (Date.now() > deadline) throw new Error(`${what}: not ready within ${Math.round(timeoutMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
