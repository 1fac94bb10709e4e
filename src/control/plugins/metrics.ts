import type { FastifyInstance } from 'fastify';
import { observeApiRequest } from '../../metrics/api.js';

/**
 * Counts and times every answered request by its route pattern (routeOptions.url, e.g.
 * `/v2/voice/sessions/:session_id`), never by the raw URL, so labels stay bounded.
 */
export function installMetrics(app: FastifyInstance): void {
  app.addHook('onResponse', async (req, reply) => {
    observeApiRequest(req.method, req.routeOptions.url, reply.statusCode, reply.elapsedTime / 1000);
  });
}
