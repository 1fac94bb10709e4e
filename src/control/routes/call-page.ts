import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { listAgentRows } from '../../db/repos/agents.js';
import { findPublishableKey } from '../../db/repos/publishable-keys.js';
import type { AppContext } from '../../shared/app-context.js';
import { takeRequest } from '../auth/rate-limit.js';

// The call page (/call): a try-it page on the browser client (packages/browser). It loads no
// inline script or style, so it runs under a strict Content-Security-Policy. POST /call/agents
// names the agents a publishable key may call, for the page's picker; like
// /v2/browser/sessions it needs the key and a listed Origin.

const require = createRequire(import.meta.url);
const distDir = join(dirname(require.resolve('@voice-agent/browser/package.json')), 'dist');
const ASSETS: Record<string, string> = {
  'voice-browser.js': 'text/javascript',
  'capture-worklet.js': 'text/javascript',
  'playback-worklet.js': 'text/javascript',
  'call-page.js': 'text/javascript',
  'call-page.css': 'text/css',
};
const PER_ADDRESS_PER_MINUTE = 30;

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Call an agent</title><link rel="stylesheet" href="/call/assets/call-page.css"></head>
<body><main>
<h1>Call an agent</h1>
<form id="setup">
<label>Publishable key <input id="key" name="key" autocomplete="off" required pattern="pk_[0-9A-Za-z]{43}"></label>
<button type="button" id="load">Load agents</button>
<label>Agent <select id="agent" required></select></label>
<button type="submit" id="call" disabled>Call</button>
<button type="button" id="mute" disabled aria-pressed="false">Mute</button>
<button type="button" id="hangup" disabled>Hang up</button>
</form>
<p id="status" role="status">Idle</p>
<div class="levels"><label>Microphone <meter id="input-level" min="0" max="1" value="0"></meter></label>
<label>Agent <meter id="output-level" min="0" max="1" value="0"></meter></label></div>
<ol id="transcript" aria-live="polite"></ol>
</main><script type="module" src="/call/assets/call-page.js"></script></body></html>`;

function csp(mediaUrl: string): string {
  const media = new URL(mediaUrl);
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `connect-src 'self' ${media.protocol}//${media.host}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function callPageRoutes(app: FastifyInstance, ctx: AppContext): void {
  const policy = csp(ctx.config.PUBLIC_MEDIA_URL);
  app.get('/call', async (_req, reply) =>
    reply.type('text/html; charset=utf-8').header('content-security-policy', policy).header('cache-control', 'no-cache').send(PAGE),
  );
  app.get<{ Params: { asset: string } }>('/call/assets/:asset', async (req, reply) => {
    const type = ASSETS[req.params.asset];
    if (!type) return reply.callNotFound();
    return reply.type(type).header('cache-control', 'no-cache').send(readFileSync(join(distDir, req.params.asset)));
  });
  app.post('/call/agents', async (req, reply) => {
    const presented = req.headers['x-publishable-key'];
    const key = typeof presented === 'string' ? await findPublishableKey(ctx, presented) : undefined;
    if (!key) return reply.code(401).send({ detail: 'invalid publishable key' });
    if ((await takeRequest(ctx, `call-page:ip:${req.ip}`, PER_ADDRESS_PER_MINUTE)).exceeded) return reply.code(429).send({ detail: 'rate limit exceeded' });
    if (!req.headers.origin || !key.origins.includes(req.headers.origin)) return reply.code(403).send({ detail: 'origin not allowed for this publishable key' });
    const rows = await listAgentRows(ctx.sql, key.project_id, { limit: 200, offset: 0, includeInactive: false });
    const allowed = key.agent_ids ? rows.filter((a) => key.agent_ids!.includes(a.id)) : rows;
    return allowed.map((a) => ({ id: a.id, name: a.display_name ?? a.name }));
  });
}
