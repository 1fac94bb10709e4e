import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A provider stand-in on 127.0.0.1:0 that records every request it gets.

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

export interface FakeProvider {
  /** Base URL to give an account as base_url, e.g. http://127.0.0.1:41234 */
  url: string;
  requests: SeenRequest[];
  close: () => Promise<void>;
}

export type FakeHandler = (req: SeenRequest, res: ServerResponse) => void;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export async function startFake(handler: FakeHandler): Promise<FakeProvider> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers };
    requests.push(seen);
    req.resume();
    req.on('end', () => handler(seen, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A base URL on which nothing listens (a server that is down). */
export async function deadUrl(): Promise<string> {
  const fake = await startFake(() => {});
  await fake.close();
  return fake.url;
}

/** A server that accepts the request and never answers (for timeouts). */
export function startSilentFake(): Promise<FakeProvider> {
  return startFake(() => {});
}
