import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

// A real HTTP webhook receiver on 127.0.0.1: records every request's raw bytes and headers and
// answers as the test scripts it (status, headers, holding the request open).

export interface Received {
  id: string;
  timestamp: string;
  signature: string;
  headers: IncomingHttpHeaders;
  body: string;
  path: string;
  atMs: number;
}

export interface Behaviour {
  status?: number;
  headers?: Record<string, string>;
  /** Resolves when the answer may be sent (holds the request open until then). */
  hold?: Promise<unknown>;
  /** Never answer (the connection stays open until the client gives up or the server closes). */
  hang?: boolean;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** Decides each answer; `n` counts requests from 1. Default: 204. */
  respond: (fn: (r: Received, n: number) => Behaviour) => void;
  waitFor: (count: number, timeoutMs?: number, filter?: (r: Received) => boolean) => Promise<Received[]>;
  /** Fires as a request arrives (before it is answered). */
  onRequest: (fn: (r: Received) => void) => void;
  close: () => Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let behave: (r: Received, n: number) => Behaviour = () => ({ status: 204 });
  const listeners: ((r: Received) => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const r: Received = {
        id: String(req.headers['webhook-id'] ?? ''),
        timestamp: String(req.headers['webhook-timestamp'] ?? ''),
        signature: String(req.headers['webhook-signature'] ?? ''),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        path: req.url ?? '/',
        atMs: Date.now(),
      };
      received.push(r);
      for (const l of listeners) l(r);
      const b = behave(r, received.length);
      if (b.hang) return;
      if (b.hold) await b.hold;
      res.writeHead(b.status ?? 204, b.headers ?? {});
      res.end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    respond: (fn) => {
      behave = fn;
    },
    onRequest: (fn) => {
      listeners.push(fn);
    },
    waitFor: async (count, timeoutMs = 10_000, filter = () => true) => {
      const deadline = Date.now() + timeoutMs;
      while (received.filter(filter).length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.filter(filter).length} of ${count} requests`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return received.filter(filter);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Verifies a received delivery with the standardwebhooks package; returns the parsed body. */
export function verifyDelivery(secret: string, r: Received): { type: string; timestamp: string; data: Record<string, unknown> } {
  return new Webhook(secret).verify(r.body, {
    'webhook-id': r.id,
    'webhook-timestamp': r.timestamp,
    'webhook-signature': r.signature,
  }) as { type: string; timestamp: string; data: Record<string, unknown> };
}
