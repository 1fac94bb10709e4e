import net from 'node:net';

// A Postgres server that stops answering without closing its connections (a frozen process or
// host, SIGSTOP) holds every query sent on them forever: postgres.js has no query timeout, the
// server's statement_timeout cannot fire, and TCP keepalives are still answered by the kernel.
// This socket factory for postgres.js watches each connection: once something was written, the
// server must keep answering (any bytes count as progress) until it says it is ready again
// (ReadyForQuery, which ends every reply); if it stays silent for `timeoutMs`, the connection
// is destroyed, so its queries fail with CONNECTION_CLOSED, "database unavailable" (503 on the
// api), and the pool connects afresh. (Destroyed without an error on purpose: postgres.js then
// rejects every query of the connection; with one, a query could be left waiting.) Plain TCP and Unix sockets only: a TLS connection's traffic
// bypasses the raw socket's write, so it is not watched.

const CHECK_EVERY_MS = 250;
/** ReadyForQuery: 'Z', length 5, one status byte. */
const READY = [0x5a, 0, 0, 0, 5];

function endsWithReady(chunk: Buffer): boolean {
  if (chunk.length < 6) return false;
  const at = chunk.length - 6;
  return READY.every((b, i) => chunk[at + i] === b);
}

/** Starts watching `socket` (see above). */
export function watchSocket(socket: net.Socket, timeoutMs: number, now: () => number = () => performance.now()): void {
  let waitingSince: number | null = null;
  const write = socket.write.bind(socket) as (...args: unknown[]) => boolean;
  socket.write = (...args: unknown[]) => {
    if (waitingSince === null) waitingSince = now();
    return write(...args);
  };
  socket.on('data', (chunk: Buffer) => {
    if (waitingSince === null) return; // notifications of an idle LISTEN connection
    waitingSince = endsWithReady(chunk) ? null : now();
  });
  const timer = setInterval(() => {
    if (waitingSince !== null && now() - waitingSince > timeoutMs) {
      clearInterval(timer);
      socket.destroy();
    }
  }, CHECK_EVERY_MS);
  timer.unref();
  socket.once('close', () => clearInterval(timer));
}

interface SocketOptions {
  host: string[];
  port: number[];
  path?: string | false;
}

/**
 * postgres.js `socket` option: a watched socket to the (first) configured host, handed over at
 * once: postgres.js writes its startup message (buffered until the connection is made), bounds
 * the whole start with its own connect timeout, and handles the socket's errors and close as
 * it does for its own sockets (a factory that rejected instead would leave its queries waiting).
 */
export function watchedSocketFactory(timeoutMs: number) {
  return (options: SocketOptions): net.Socket => {
    const socket = options.path ? net.connect(options.path) : net.connect(options.port[0], options.host[0]);
    watchSocket(socket, timeoutMs);
    return socket;
  };
}
