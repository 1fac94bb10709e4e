import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import type { AppContext } from '../shared/app-context.js';
import { checkReadiness, readinessResponse } from '../health/readiness.js';
import { installDocs } from './docs-page.js';
import { ApiDocs } from './openapi.js';
import { clientErrorHandler } from './plugins/client-errors.js';
import { installCors } from './plugins/cors.js';
import { installErrorHandler } from './plugins/error-handler.js';
import { BODY_LIMIT_BYTES, installJsonBody } from './plugins/json-body.js';
import { installMetrics } from './plugins/metrics.js';
import type { Router } from './route.js';
import { registerRoutes } from './routes/index.js';

/** Fastify takes a hop count as a function of the hop index. */
function trustProxy(setting: boolean | number | string[]): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** The control plane: both doors, one error model, docs generated from the route schemas. */
export async function buildApp(ctx: AppContext): Promise<FastifyInstance> {
  // Typed as Fastify's logger so the instance is a plain FastifyInstance (not one generic over pino).
  const logger: FastifyBaseLogger = ctx.log.child({ role: 'api' });
  const app = Fastify({
    loggerInstance: logger,
    bodyLimit: BODY_LIMIT_BYTES,
    genReqId: () => randomUUID(),
    trustProxy: trustProxy(ctx.config.TRUST_PROXY),
    // A request (headers and body) must arrive within this; a dribbled body is cut with a 408.
    requestTimeout: ctx.config.HTTP_REQUEST_TIMEOUT_MS,
    // An idle keep-alive connection is closed after this.
    keepAliveTimeout: ctx.config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    clientErrorHandler: clientErrorHandler(logger),
    // Node checks request timeouts on this interval (30 s by default, which would let a dribbled
    // body live up to 30 s past its timeout); headers get the same bound as the whole request.
    http: { connectionsCheckingInterval: 1000, headersTimeout: ctx.config.HTTP_REQUEST_TIMEOUT_MS },
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised before routing (bad URL encoding, over-long path segments) keep the error shape.
    frameworkErrors: (err, req, reply) => {
      reply.header('x-request-id', req.id);
      void (reply as unknown as FastifyReply).code(err.statusCode ?? 400).send({ detail: err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'path segment too long' : 'malformed URL' });
    },
  });
  app.addHook('onRequest', async (req, reply) => {
    reply.header('x-request-id', req.id);
  });
  installMetrics(app);
  installErrorHandler(app);
  installJsonBody(app);
  const docs = new ApiDocs();
  const router: Router = { app, ctx, docs };
  registerRoutes(router);
  installCors(app, ctx);
  installDocs(app, docs, ctx.config.PUBLIC_BASE_URL);
  // Liveness: the process answers. Readiness: it can serve (Postgres, Redis, schema, not draining).
  app.get('/healthz', async () => ({ ok: true }));
  app.get('/readyz', async (_req, reply) => {
    const { status, body } = readinessResponse(await checkReadiness(ctx));
    return reply.code(status).send(body);
  });
  await app.ready();
  return app;
}
