import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppContext } from '../shared/app-context.js';
import { checkReadiness, readinessResponse } from './readiness.js';

export interface HealthServer {
  port: number;
  close(): Promise<void>;
}

/** /healthz and /readyz on a small HTTP port of their own, for a role that serves no HTTP otherwise (the worker). */
export async function startHealthServer(ctx: AppContext, port: number, host: string): Promise<HealthServer> {
  const server = createServer((req, res) => {
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
    };
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return reply(405, { detail: 'method not allowed' });
    if (path === '/healthz') return reply(200, { ok: true });
    if (path !== '/readyz') return reply(404, { detail: 'route not found' });
    checkReadiness(ctx).then(
      (r) => {
        const { status, body } = readinessResponse(r);
        reply(status, body);
      },
      (err: unknown) => reply(503, { detail: `not ready (${err instanceof Error ? err.message : String(err)})` }),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
