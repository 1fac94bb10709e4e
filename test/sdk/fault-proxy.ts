import { createServer, request, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// An HTTP proxy in front of the real service that injects faults for the retry rules: answers
// a scripted status (503, 429 with Retry-After, ...) instead of forwarding, or drops the
// connection without answering. Every request that reaches it is recorded.

export type Fault =
  | { status: number; retryAfter?: string; body?: unknown }
  /** Destroy the socket before any answer. */
  | { drop: true }
  /** Forward, then destroy the socket instead of answering (the effect happened, the answer was lost). */
  | { dropAfterForward: true }
  /** Wait, then forward. */
  | { delayMs: number };

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  atMs: number;
  /** What the proxy did. */
  outcome: 'forwarded' | 'fault';
}

export interface FaultProxy {
  url: string;
  seen: Seen[];
  /** Faults for the next requests, in order; once used up, requests are forwarded. */
  script(...faults: Fault[]): void;
  close(): Promise<void>;
}

export async function startFaultProxy(target: string): Promise<FaultProxy> {
  const upstream = new URL(target);
  const seen: Seen[] = [];
  let faults: Fault[] = [];
  const forward = (req: import('node:http').IncomingMessage, body: Buffer, onAnswer: (status: number, headers: IncomingHttpHeaders, data: Buffer) => void) => {
    const out = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => onAnswer(res.statusCode ?? 502, res.headers, Buffer.concat(chunks)));
    });
    // The service may be gone (teardown) while a delayed request waits: drop the client too.
    out.on('error', () => req.socket.destroy());
    out.end(body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const fault = faults.shift();
      const entry: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, atMs: performance.now(), outcome: fault && !('delayMs' in fault) && !('dropAfterForward' in fault) ? 'fault' : 'forwarded' };
      seen.push(entry);
      const body = Buffer.concat(chunks);
      if (fault && 'drop' in fault) return req.socket.destroy();
      if (fault && 'status' in fault) {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-request-id': 'proxy-fault' };
        if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
        res.writeHead(fault.status, headers);
        return res.end(JSON.stringify(fault.body ?? { detail: `injected ${fault.status}` }));
      }
      const answer = (status: number, headers: IncomingHttpHeaders, data: Buffer) => {
        if (fault && 'dropAfterForward' in fault) return req.socket.destroy();
        res.writeHead(status, headers);
        res.end(data);
      };
      if (fault && 'delayMs' in fault) setTimeout(() => forward(req, body, answer), fault.delayMs);
      else forward(req, body, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    script: (...f) => {
      faults = f;
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
