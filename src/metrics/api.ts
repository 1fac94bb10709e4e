import { Counter, Histogram } from 'prom-client';
import { registry } from './registry.js';

// The api role's requests, by route pattern (`/v2/voice/sessions/:session_id`, never the
// id itself), method and status. Requests that matched no route are counted under `unmatched`.

const labelNames = ['method', 'route', 'status'] as const;

export const apiRequests = new Counter({
  name: 'voice_api_requests_total',
  help: 'HTTP requests answered by the api, by method, route pattern and status',
  labelNames,
  registers: [registry],
});

export const apiRequestDuration = new Histogram({
  name: 'voice_api_request_duration_seconds',
  help: 'Time to answer an HTTP request of the api, by method, route pattern and status',
  labelNames,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

/** Methods Fastify routes; anything else is counted as `other` so a client cannot mint labels. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

export function observeApiRequest(method: string, route: string | undefined, status: number, seconds: number): void {
  const labels = { method: METHODS.has(method) ? method : 'other', route: route ?? 'unmatched', status: String(status) };
  apiRequests.inc(labels);
  apiRequestDuration.observe(labels, seconds);
}
