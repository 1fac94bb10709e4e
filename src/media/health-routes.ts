import type uWS from 'uWebSockets.js';
import { checkReadiness, readinessResponse } from '../health/readiness.js';
import type { AppContext } from '../shared/app-context.js';

function send(res: uWS.HttpResponse, status: string, body: object): void {
  res.cork(() => {
    res.writeStatus(status).writeHeader('content-type', 'application/json; charset=utf-8').end(JSON.stringify(body));
  });
}

/**
 * /healthz and /readyz on the media port (the same answers as the api port's), and a 404 in the
 * contract's error shape for any other plain HTTP request (it used to get an empty reply).
 */
export function installHealthRoutes(app: uWS.TemplatedApp, ctx: AppContext): void {
  app.get('/healthz', (res) => send(res, '200 OK', { ok: true }));
  app.get('/readyz', (res) => {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    void checkReadiness(ctx).then((r) => {
      if (aborted) return;
      const { status, body } = readinessResponse(r);
      send(res, status === 200 ? '200 OK' : '503 Service Unavailable', body);
    });
  });
  app.any('/*', (res) => send(res, '404 Not Found', { detail: 'route not found' }));
}
