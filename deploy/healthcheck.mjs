// The image's HEALTHCHECK (also used by deploy/compose.yaml): every role this container runs
// (ROLES) must answer GET /readyz with 200 on its own port — api on PORT, media on MEDIA_PORT,
// worker on WORKER_HTTP_PORT — within HEALTHCHECK_TIMEOUT_MS. Exit 0 when all do, 1 (with the reason on
// stderr, shown by `docker inspect`) otherwise. Node's fetch only: the image has no curl.
// Reads the process environment (not an .env file), as the container's settings come from there.

const env = process.env;
const roles = (env.ROLES ?? 'api,media,worker').split(',').map((r) => r.trim()).filter(Boolean);
const ports = { api: env.PORT || '8080', media: env.MEDIA_PORT || '8081', worker: env.WORKER_HTTP_PORT || '8082' };
const timeoutMs = Number(env.HEALTHCHECK_TIMEOUT_MS || 4000);

/** Where to reach the process from inside its container: loopback when it binds every interface. */
function probeHost(bind) {
  if (!bind || bind === '0.0.0.0') return '127.0.0.1';
  if (['::', '[::]', '::0'].includes(bind)) return '[::1]';
  return bind.includes(':') && !bind.startsWith('[') ? `[${bind}]` : bind;
}

const host = probeHost(env.HOST);
const failures = [];
await Promise.all(
  roles.map(async (role) => {
    const port = ports[role];
    if (!port) {
      failures.push(`${role}: unknown role`);
      return;
    }
    const url = `http://${host}:${port}/readyz`;
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
      const body = await res.text();
      if (res.status !== 200) failures.push(`${role} ${url}: ${res.status} ${body.slice(0, 300)}`);
    } catch (err) {
      failures.push(`${role} ${url}: ${err?.cause?.code ?? err?.name ?? 'error'} ${err?.message ?? String(err)}`);
    }
  }),
);
if (failures.length) {
  console.error(`not ready: ${failures.join('; ')}`);
  process.exit(1);
}
console.log(`ready: ${roles.join(',')}`);
