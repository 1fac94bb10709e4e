import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Router } from '../route.js';

// The web console (console/, built into console/dist by `npm run build`): index.html at `/` and
// at the console's own page paths (never a catch-all, so /v2, /console, /docs, /openapi.json,
// /healthz, /readyz and /call keep their own answers and unknown paths stay 404s), and its
// hashed assets under /assets, cached for a year.

/** The console's client-side pages; each of these paths answers index.html. */
export const CONSOLE_PAGES = ['/', '/login', '/signup', '/verify', '/projects', '/p/*'];

const TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

interface Asset {
  type: string;
  body: Buffer;
  gzip: Buffer;
}

/** The console's build folder, both when run from src (tsx) and from dist (compiled). */
export function consoleDistDir(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'console', 'dist');
    dir = dirname(dir);
  }
  return null;
}

/** Scripts and styles only from this origin, nothing inline; sockets to this origin and the media origin. */
export function consoleCsp(publicMediaUrl: string): string {
  let media = '';
  try {
    media = new URL(publicMediaUrl).origin;
  } catch {
    media = '';
  }
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    `connect-src 'self'${media && media !== 'null' ? ` ${media}` : ''}`,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function loadAssets(dist: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  const dir = join(dist, 'assets');
  if (!existsSync(dir)) return assets;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (!type) continue;
    const body = readFileSync(join(dir, name));
    assets.set(name, { type, body, gzip: gzipSync(body) });
  }
  return assets;
}

const acceptsGzip = (req: FastifyRequest) => /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));

export function consolePages(router: Router): void {
  const { app, ctx } = router;
  const dist = consoleDistDir();
  const indexFile = dist ? join(dist, 'index.html') : null;
  // Read once: the build is fixed for the life of the process.
  const index = indexFile && existsSync(indexFile) ? readFileSync(indexFile) : null;
  const assets = dist ? loadAssets(dist) : new Map<string, Asset>();
  const csp = consoleCsp(ctx.config.PUBLIC_MEDIA_URL);
  const common = (reply: FastifyReply) =>
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('x-frame-options', 'DENY');

  const page = async (_req: FastifyRequest, reply: FastifyReply) => {
    if (!index) return reply.code(503).send({ detail: 'the console is not built: run npm run build' });
    common(reply).header('content-security-policy', csp).header('cache-control', 'no-cache');
    return reply.type('text/html; charset=utf-8').send(index);
  };
  for (const url of CONSOLE_PAGES) app.get(url, page);

  app.get<{ Params: { file: string } }>('/assets/:file', async (req, reply) => {
    const asset = assets.get(req.params.file);
    if (!asset) return reply.code(404).send({ detail: 'not found' });
    common(reply).header('cache-control', 'public, max-age=31536000, immutable').header('vary', 'accept-encoding');
    if (acceptsGzip(req)) reply.header('content-encoding', 'gzip');
    return reply.type(asset.type).send(acceptsGzip(req) ? asset.gzip : asset.body);
  });
}
