import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, dirname } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ApiDocs } from './openapi.js';

// /openapi.json and an interactive reference at /docs (Swagger UI served from the
// swagger-ui-dist package, so it works offline).
const require = createRequire(import.meta.url);
const assetsDir = dirname(require.resolve('swagger-ui-dist/package.json'));
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css',
  'swagger-ui-bundle.js': 'application/javascript',
  'swagger-ui-standalone-preset.js': 'application/javascript',
};

const PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Voice agent service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script>window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#ui', tryItOutEnabled: true });</script>
</body></html>`;

export function installDocs(app: FastifyInstance, docs: ApiDocs, serverUrl: string): void {
  let cached: string | undefined;
  app.get('/openapi.json', async (_req, reply) => {
    cached ??= JSON.stringify(docs.document(serverUrl));
    return reply.type('application/json').send(cached);
  });
  app.get('/docs', async (_req, reply) => reply.type('text/html').send(PAGE));
  app.get<{ Params: { asset: string } }>('/docs/:asset', async (req, reply) => {
    const type = ASSETS[req.params.asset];
    if (!type) return reply.callNotFound();
    return reply.type(type).send(readFileSync(join(assetsDir, req.params.asset)));
  });
}
