import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { originOfAnyLiveKey } from '../../db/repos/publishable-key-origins.js';
import type { AppContext } from '../../shared/app-context.js';

// CORS on the publishable-key routes (contract §11), for pages calling them from a browser.
//
// A preflight carries no key, so it is matched against every key: an Origin listed by some live
// (unrevoked) key of a project in good standing gets 204 with exactly that origin echoed, the
// method and the headers the route takes; any other origin gets a 204 with no CORS headers, so
// the browser refuses the call. The actual request is then checked against the key it presents
// (403 "origin not allowed for this publishable key"), and its response (201 or an error) carries
// Access-Control-Allow-Origin under the same rule, so a page on an allowed origin can read the
// session, the errors and their Retry-After. Every answer carries `Vary: Origin`.

/** Routes a browser calls with a publishable key. */
export const PUBLISHABLE_KEY_ROUTES = ['/v2/browser/sessions'] as const;

const ALLOW_METHODS = 'POST';
const ALLOW_HEADERS = 'Content-Type, X-Publishable-Key';
const EXPOSE_HEADERS = 'Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id';
const PREFLIGHT_MAX_AGE_SECONDS = 600;

function originOf(req: FastifyRequest): string | null {
  const origin = req.headers.origin;
  // Browsers send one origin; `null` (sandboxed pages, file://) is never on a key's list.
  return typeof origin === 'string' && origin !== 'null' && origin.length <= 300 ? origin : null;
}

async function allowedOrigin(ctx: AppContext, req: FastifyRequest): Promise<string | null> {
  const origin = originOf(req);
  return origin && (await originOfAnyLiveKey(ctx.sql, origin)) ? origin : null;
}

export function installCors(app: FastifyInstance, ctx: AppContext, routes: readonly string[] = PUBLISHABLE_KEY_ROUTES): void {
  const paths = new Set(routes);

  for (const url of routes) {
    app.options(url, async (req, reply: FastifyReply) => {
      reply.header('vary', 'Origin');
      const origin = await allowedOrigin(ctx, req);
      if (origin) {
        reply.headers({
          'access-control-allow-origin': origin,
          'access-control-allow-methods': ALLOW_METHODS,
          'access-control-allow-headers': ALLOW_HEADERS,
          'access-control-max-age': String(PREFLIGHT_MAX_AGE_SECONDS),
        });
      }
      return reply.code(204).send();
    });
  }

  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'OPTIONS' || !paths.has(req.routeOptions.url ?? '')) return payload;
    reply.header('vary', 'Origin');
    // A failing lookup must not turn an answer into a 500: the response just has no CORS headers.
    const origin = await allowedOrigin(ctx, req).catch(() => null);
    if (origin) reply.headers({ 'access-control-allow-origin': origin, 'access-control-expose-headers': EXPOSE_HEADERS });
    return payload;
  });
}
