import t from 'tap';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { startHarness } from '../helpers/harness.js';
import { consoleCsp } from '../../src/control/routes/console-pages.js';

// The api role serves the console: index.html (no-cache, strict CSP) at its page paths only,
// hashed assets cached for a year, and every other path keeps its own answer.

execFileSync(process.execPath, ['console/build.mjs'], { stdio: 'pipe' });
const h = await startHarness({ env: { PUBLIC_MEDIA_URL: 'wss://media.example.com:8443/base' } });
t.teardown(() => h.close());

t.test('index.html at / and at client-side page paths, no-cache, with a strict CSP', async (t) => {
  for (const url of ['/', '/login', '/signup', '/verify', '/projects', '/p/0b9d2c1e-0000-4000-8000-000000000000/agents/new']) {
    const res = await h.app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 200, url);
    t.match(res.headers['content-type'], /^text\/html/);
    t.equal(res.headers['cache-control'], 'no-cache');
    t.match(res.body, /<div id="app"><\/div>/);
    const csp = String(res.headers['content-security-policy']);
    t.match(csp, /default-src 'none'/);
    t.match(csp, /script-src 'self'(;|$)/, 'scripts from this origin only: nothing inline');
    t.match(csp, /style-src 'self'(;|$)/);
    t.match(csp, /connect-src 'self' wss:\/\/media\.example\.com:8443(;|$)/, 'sockets to the media origin');
    t.match(csp, /frame-ancestors 'none'/);
    t.equal(res.headers['x-content-type-options'], 'nosniff');
  }
  t.notMatch(readFileSync('console/dist/index.html', 'utf8'), /<script>|<style>|style=/, 'no inline script or style in the page');
});

t.test('hashed assets are immutable for a year, gzipped when asked', async (t) => {
  const html = (await h.app.inject({ method: 'GET', url: '/' })).body;
  const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]);
  t.equal(assets.length, 2, 'one script and one stylesheet');
  for (const url of assets) {
    t.match(url, /-[A-Z0-9]{8}\.(js|css)$/, 'the name carries the content hash');
    const plain = await h.app.inject({ method: 'GET', url });
    t.equal(plain.statusCode, 200);
    t.equal(plain.headers['cache-control'], 'public, max-age=31536000, immutable');
    t.match(plain.headers['content-type'], url.endsWith('.js') ? /^application\/javascript/ : /^text\/css/);
    const zipped = await h.app.inject({ method: 'GET', url, headers: { 'accept-encoding': 'gzip, br' } });
    t.equal(zipped.headers['content-encoding'], 'gzip');
    t.equal(gunzipSync(zipped.rawPayload).toString(), plain.body);
  }
  const missing = await h.app.inject({ method: 'GET', url: '/assets/app-NOTTHERE.js' });
  t.equal(missing.statusCode, 404);
  t.same(missing.json(), { detail: 'not found' });
  t.equal((await h.app.inject({ method: 'GET', url: '/assets/..%2Fpackage.json' })).statusCode, 404, 'only files of the build');
});

t.test('other paths keep their own answers', async (t) => {
  t.equal((await h.app.inject({ method: 'GET', url: '/healthz' })).json().ok, true);
  t.match((await h.app.inject({ method: 'GET', url: '/openapi.json' })).headers['content-type'], /json/);
  t.match((await h.app.inject({ method: 'GET', url: '/docs' })).body, /swagger/i);
  const v2 = await h.app.inject({ method: 'GET', url: '/v2/agents' });
  t.equal(v2.statusCode, 401, 'the machine door still asks for a key');
  const consoleDoor = await h.app.inject({ method: 'GET', url: '/console/v2/projects' });
  t.equal(consoleDoor.statusCode, 401);
  for (const url of ['/nope', '/v2/nope', '/console', '/projects/x/y']) {
    const res = await h.app.inject({ method: 'GET', url });
    t.equal(res.statusCode, 404, url);
    t.match(res.headers['content-type'], /json/, `${url} is not the console page`);
  }
});

t.test('the CSP names only an origin for the media URL', async (t) => {
  t.match(consoleCsp('ws://127.0.0.1:8081'), /connect-src 'self' ws:\/\/127\.0\.0\.1:8081;/);
  t.match(consoleCsp('not a url'), /connect-src 'self';/);
});
