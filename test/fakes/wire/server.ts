import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

// Base for the providers' wire fakes: a node:http server (and a `ws` WebSocketServer on the
// same port) on 127.0.0.1:0 that records every request exactly as received and notices when
// the client closes the connection, so tests can assert on paths, headers, bodies and
// cancellation. Routes are "METHOD /path" → handler; unknown routes answer 404.

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Resolves when the client's socket closes (cancellation shows up here). */
  closed: Promise<void>;
}

export type HttpHandler = (req: ReceivedRequest, res: ServerResponse) => void | Promise<void>;

export interface ReceivedSocket {
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  /** Text frames parsed as JSON (binary frames go to `binary`). */
  messages: unknown[];
  binary: Buffer[];
  ws: WebSocket;
  closed: Promise<{ code: number; reason: string }>;
}

export type WsHandler = (sock: ReceivedSocket, upgrade: IncomingMessage) => void;

/** Refuse a WebSocket upgrade with an HTTP answer (how providers report 401/429 at handshake). */
export type UpgradeGate = (req: IncomingMessage) => { status: number; headers?: Record<string, string>; body: unknown } | null;

export class WireFake {
  readonly requests: ReceivedRequest[] = [];
  readonly sockets: ReceivedSocket[] = [];
  /** TCP connections accepted (a refused destination shows up as none). */
  connections = 0;
  private readonly routes = new Map<string, HttpHandler>();
  private wsRoutes: { prefix: string; handler: WsHandler; gate?: UpgradeGate }[] = [];
  private server: Server;
  private wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  baseUrl = '';
  wsUrl = '';

  constructor() {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('connection', () => this.connections++);
    this.server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const route = this.wsRoutes.find((r) => url.pathname.startsWith(r.prefix));
      if (!route) {
        socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
        return;
      }
      const refusal = route.gate?.(req);
      if (refusal) {
        const body = JSON.stringify(refusal.body);
        const extra = Object.entries(refusal.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join('');
        socket.end(
          `HTTP/1.1 ${refusal.status} Refused\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`,
        );
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const rec: ReceivedSocket = {
          path: url.pathname,
          query: url.searchParams,
          headers: req.headers,
          messages: [],
          binary: [],
          ws,
          closed: new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
        };
        ws.on('message', (data, isBinary) => {
          if (isBinary) rec.binary.push(Buffer.from(data as Buffer));
          else {
            try {
              rec.messages.push(JSON.parse(data.toString()));
            } catch {
              rec.messages.push({ unparsable: data.toString() });
            }
          }
        });
        this.sockets.push(rec);
        route.handler(rec, req);
      });
    });
  }

  /** `route` is "METHOD /path"; a later call replaces the handler (tests script each case). */
  on(route: string, handler: HttpHandler): this {
    this.routes.set(route, handler);
    return this;
  }

  onWebSocket(prefix: string, handler: WsHandler, gate?: UpgradeGate): this {
    this.wsRoutes = this.wsRoutes.filter((r) => r.prefix !== prefix);
    this.wsRoutes.push({ prefix, handler, gate });
    return this;
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.baseUrl = `http://127.0.0.1:${port}`;
    this.wsUrl = `ws://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.ws.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const parts: Buffer[] = [];
    for await (const c of req) parts.push(c as Buffer);
    const closed = new Promise<void>((resolve) => {
      if (req.socket.destroyed) resolve();
      else req.socket.once('close', () => resolve());
    });
    const rec: ReceivedRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: Buffer.concat(parts), closed };
    this.requests.push(rec);
    const handler = this.routes.get(`${req.method} ${url.pathname}`);
    if (!handler) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
      return;
    }
    try {
      await handler(rec, res);
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    }
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Writes `text` in pieces with pauses, the way a streaming server flushes. Stops if the client left. */
export async function writeSlowly(res: ServerResponse, pieces: (string | Buffer)[], delayMs: number): Promise<void> {
  for (const p of pieces) {
    if (res.destroyed || res.writableEnded) return;
    res.write(p);
    if (delayMs) await sleep(delayMs);
  }
}

export function jsonResponse(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers }).end(text);
}
