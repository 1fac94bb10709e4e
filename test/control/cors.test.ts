import t from 'tap';
import WebSocket from 'ws';
import { startHarness } from '../helpers/harness.js';
import { createTenant } from '../helpers/fixtures.js';
import { createAgent, fund, MINUTE_NANO } from '../sessions/fixtures.js';
import { startMediaNode } from '../../src/roles/media.js';
import { mediaUrl } from '../media/client.js';

// CORS on /v2/browser/sessions (contract §11): a preflight from an origin a live publishable key
// lists answers 204 echoing exactly that origin, the method and headers, Vary: Origin; any other
// origin gets no CORS headers; the POST's answers carry Access-Control-Allow-Origin. The media
// socket of a browser session refuses other origins (4403). Real Postgres, Redis and socket.

const h = await startHarness();
const media = await startMediaNode(h.ctx, { port: 0, host: '127.0.0.1' });
t.teardown(async () => {
  await media.drain(0);
  await h.close();
});
const tenant = await createTenant(h);
const { agentId } = await createAgent(h, tenant.projectId);
await fund(h, tenant.projectId, 100n * MINUTE_NANO);

const ORIGIN = 'https://shop.example.com';
const OTHER = 'https://evil.example.net';
const mint = async (origins: string[]) =>
  (await h.app.inject({ method: 'POST', url: `/console/v2/projects/${tenant.projectId}/publishable-keys`, headers: tenant.bearer, payload: { name: 'web', origins } })).json() as { id: string; key: string };
const key = await mint([ORIGIN]);

const preflight = (origin: string) =>
  h.app.inject({
    method: 'OPTIONS',
    url: '/v2/browser/sessions',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-publishable-key' },
  });
const corsHeaders = (headers: Record<string, unknown>) => Object.keys(headers).filter((k) => k.startsWith('access-control-'));
let address = 0;
const start = (origin: string, payload: object = { agent_id: agentId }) =>
  h.app.inject({ method: 'POST', url: '/v2/browser/sessions', headers: { 'x-publishable-key': key.key, origin }, payload, remoteAddress: `10.1.0.${++address}` });

t.test('a preflight from a listed origin: 204 echoing exactly that origin, method, headers, Vary: Origin', async (t) => {
  const res = await preflight(ORIGIN);
  t.equal(res.statusCode, 204);
  t.equal(res.headers['access-control-allow-origin'], ORIGIN);
  t.match(res.headers['access-control-allow-methods'], /\bPOST\b/);
  const allowed = String(res.headers['access-control-allow-headers']).toLowerCase();
  t.match(allowed, /content-type/);
  t.match(allowed, /x-publishable-key/);
  t.match(res.headers.vary, /Origin/);
  t.notOk(res.headers['access-control-allow-credentials'], 'no credentials: the key is the credential');
});

t.test('any other origin gets no CORS headers: unlisted, a near miss, "null", a revoked key\'s', async (t) => {
  for (const origin of [OTHER, 'https://shop.example.com:8443', 'http://shop.example.com', 'null']) {
    const res = await preflight(origin);
    t.equal(res.statusCode, 204, origin);
    t.same(corsHeaders(res.headers), [], `${origin}: no CORS headers`);
    t.match(res.headers.vary, /Origin/);
  }
  const gone = await mint(['https://old.example.org']);
  t.equal((await preflight('https://old.example.org')).headers['access-control-allow-origin'], 'https://old.example.org');
  await h.app.inject({ method: 'DELETE', url: `/console/v2/projects/${tenant.projectId}/publishable-keys/${gone.id}`, headers: tenant.bearer });
  t.same(corsHeaders((await preflight('https://old.example.org')).headers), [], 'a revoked key allows nothing');
});

t.test('the POST: its 201 and its errors carry Access-Control-Allow-Origin for a listed origin, nothing for others', async (t) => {
  const ok = await start(ORIGIN);
  t.equal(ok.statusCode, 201);
  t.equal(ok.headers['access-control-allow-origin'], ORIGIN);
  t.match(ok.headers['access-control-expose-headers'], /Retry-After/);
  t.match(ok.headers.vary, /Origin/);

  const invalid = await start(ORIGIN, { agent_id: 'nope' });
  t.equal(invalid.statusCode, 422);
  t.equal(invalid.headers['access-control-allow-origin'], ORIGIN, 'the page can read why');

  const refused = await start(OTHER);
  t.equal(refused.statusCode, 403);
  t.same(corsHeaders(refused.headers), []);
  // Allowed by another key of the service, but not by the key presented: refused by the key check.
  await mint([OTHER]);
  const wrongKey = await start(OTHER);
  t.equal(wrongKey.statusCode, 403);
  t.same(wrongKey.json(), { detail: 'origin not allowed for this publishable key' });
});

/** Connects, hangs up once joined; the close code says how it went (4403 refused, 1000 joined and hung up). */
function hangUp(wsUrl: string, origin: string | undefined): Promise<{ code: number; reason: string }> {
  const ws = new WebSocket(mediaUrl(wsUrl, media.port), origin ? { origin } : {});
  ws.once('open', () => ws.send(JSON.stringify({ type: 'stop' })));
  return new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}

t.test('the media socket of a browser session: another origin is refused with 4403, the listed one joins', async (t) => {
  const connect = async (origin: string | undefined) => {
    const res = await start(ORIGIN);
    t.equal(res.statusCode, 201);
    return { outcome: await hangUp(res.json().ws_url, origin), sessionId: res.json().session.id as string };
  };
  const refused = await connect(OTHER);
  t.same(refused.outcome, { code: 4403, reason: 'origin not allowed' });
  const [row] = await h.ctx.sql`select status, token_used_at from voice_sessions where id = ${refused.sessionId}`;
  t.same(row, { status: 'created', token_used_at: null }, 'the refused socket did not use the token');
  t.same((await connect(undefined)).outcome, { code: 4403, reason: 'origin not allowed' }, 'no Origin at all');
  t.same((await connect(ORIGIN)).outcome, { code: 1000, reason: 'caller_hangup' }, 'the listed origin joins (and hangs up)');
});

t.test('API-key sessions have no origin rule on their socket', async (t) => {
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers: tenant.machine, payload: { agent_id: agentId } });
  t.same(await hangUp(res.json().ws_url, OTHER), { code: 1000, reason: 'caller_hangup' });
});
