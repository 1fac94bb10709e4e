import { availableParallelism } from 'node:os';
import { z } from 'zod';

// Environment is parsed once, here; everything else receives a typed Config.
const flag = z.enum(['0', '1']).transform((v) => v === '1');
const schedule = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'comma-separated milliseconds')
  .transform((v) => v.split(',').map(Number));

/** The roles a process can run (ROLES). */
export const ROLE_NAMES = ['api', 'media', 'worker'] as const;

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  MEDIA_PORT: z.coerce.number().int().min(0).max(65535).default(8081),
  /** The api port: a whole request (headers and body) must arrive within this, or it is cut with a 408. */
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(30_000),
  /** The api port: idle keep-alive connections close after this. */
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).max(600_000).default(72_000),
  /**
   * Which proxies' X-Forwarded-For to believe for the client address (per-address limits):
   * `false` (none, the default), `true` (any), a hop count, or a comma-separated list of addresses/CIDRs.
   */
  TRUST_PROXY: z
    .string()
    .default('false')
    .transform((v): boolean | number | string[] => (v === 'true' ? true : v === 'false' ? false : /^\d+$/.test(v) ? Number(v) : v.split(',').map((x) => x.trim()).filter(Boolean))),
  /** Mail through SMTP when set (verification mails); without it mails are written to the log. */
  SMTP_URL: z.string().url().optional(),
  MAIL_FROM: z.string().min(3).default('Voice agent service <no-reply@localhost>'),
  /** The worker role's /healthz and /readyz. */
  WORKER_HTTP_PORT: z.coerce.number().int().min(0).max(65535).default(8082),
  /** Prometheus text at GET /metrics, one server per process whatever its roles; 0 picks a free port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(9464),
  /** Where /metrics listens: loopback unless a scraper elsewhere needs it (it is not authenticated). */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_URL: z.string().min(1).default('postgres://localhost:5432/voice'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  /**
   * First run (src/bootstrap): with DATABASE_URL / REDIS_URL unset, the 127.0.0.1 port where the service
   * looks for Postgres / Redis and, when nothing answers there (and not in production), starts its own.
   */
  LOCAL_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(5432),
  LOCAL_REDIS_PORT: z.coerce.number().int().min(1).max(65535).default(6379),
  /** Request and media paths: a Redis command (slots, rate windows) answers or fails within this. */
  REDIS_COMMAND_TIMEOUT_MS: z.coerce.number().int().min(50).max(10_000).default(500),
  /** A new Postgres connection must be established within this, else the query fails (503 on the api). */
  DATABASE_CONNECT_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(1000),
  /**
   * A statement running longer is cancelled by the server (503 on the api); a server that stops
   * answering altogether (frozen) has the connection cut by the client 1 s later. 0 turns both off.
   */
  DATABASE_STATEMENT_TIMEOUT_MS: z.coerce.number().int().min(0).max(600_000).default(5000),
  PUBLIC_BASE_URL: z.string().url().optional(),
  PUBLIC_MEDIA_URL: z.string().optional(),
  KEYRING: z.string().optional(),
  ALLOW_PRIVATE_URLS: flag.default(false),
  WEBHOOK_RETRY_SCHEDULE_MS: schedule.default([0, 5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]),
  TRANSCRIPT_RETENTION_DAYS: z.coerce.number().int().min(1).max(90).default(90),
  ROLES: z
    .string()
    .default('api,media,worker')
    .transform((v) => v.split(',').map((r) => r.trim()).filter(Boolean))
    .pipe(z.array(z.enum(ROLE_NAMES)).min(1)),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATA_DIR: z.string().default('.data'),
  /** `echo` plays the caller back instead of running the agent (media load tests). */
  MEDIA_PIPELINE: z.enum(['agent', 'echo']).default('agent'),
  DRAIN_GRACE_MS: z.coerce.number().int().min(0).default(10000),
  /** Worker role: how often the campaign scheduler settles ended calls and dials due rows. */
  CAMPAIGN_TICK_MS: z.coerce.number().int().min(20).max(60_000).default(1000),
  /**
   * Media socket (both transports): the messages per second one socket may send, sustained
   * (token bucket, every message counts). Over it: one `error` frame (browser sockets), close 1008.
   */
  MEDIA_MAX_MESSAGES_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(200),
  /**
   * Scale-out (docs/media.md): media processes `npm start` runs on this host, on MEDIA_PORT, +1, ...
   * (`auto`: one per core). Each registers in Redis with its own public URL (PUBLIC_MEDIA_URL with
   * `{index}` / `{port}` filled in, or else its port replaced).
   */
  MEDIA_PROCESSES: z
    .string()
    .default('1')
    .transform((v) => (v === 'auto' ? Math.max(1, availableParallelism()) : Number(v)))
    .pipe(z.number().int().min(1).max(256)),
  /** Calls one media process takes at most: admission picks another node (or answers 503) past it. */
  MEDIA_CAPACITY: z.coerce.number().int().min(1).max(100_000).default(300),
  /** `host:port,...` of a Redis Cluster's seed nodes: used instead of REDIS_URL (its credentials and TLS still apply). */
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(/^[^,:\s]+:\d+(,[^,:\s]+:\d+)*$/, 'comma-separated host:port')
    .transform((v) => v.split(',').map((n) => ({ host: n.slice(0, n.lastIndexOf(':')), port: Number(n.slice(n.lastIndexOf(':') + 1)) })))
    .optional(),
  /** Media socket: the bucket's size, i.e. how many messages one socket may send at once. */
  MEDIA_MESSAGE_BURST: z.coerce.number().int().min(1).max(10_000_000).default(400),
});

export type Role = (typeof ROLE_NAMES)[number];

export type Config = Omit<z.infer<typeof EnvSchema>, 'PUBLIC_BASE_URL' | 'PUBLIC_MEDIA_URL'> & {
  PUBLIC_BASE_URL: string;
  PUBLIC_MEDIA_URL: string;
};

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid environment: ${lines.join('; ')}`);
  }
  const c = parsed.data;
  checkDeployment(c, env);
  return {
    ...c,
    PUBLIC_BASE_URL: c.PUBLIC_BASE_URL ?? `http://${c.HOST}:${c.PORT}`,
    PUBLIC_MEDIA_URL: c.PUBLIC_MEDIA_URL ?? `ws://${c.HOST}:${c.MEDIA_PORT}`,
  };
}

/** Addresses that bind every interface: no client can use them in a link. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::', '[::]', '::0']);

/**
 * Deployment checks (README "Deploy"): on a wildcard HOST the default public URLs would hand
 * clients `ws://0.0.0.0:8081/...`; with NODE_ENV=production the generated development keyring
 * (one per container, so one role could not open what another sealed) is refused.
 */
function checkDeployment(c: z.infer<typeof EnvSchema>, env: NodeJS.ProcessEnv): void {
  const unset = (['PUBLIC_BASE_URL', 'PUBLIC_MEDIA_URL'] as const).filter((k) => !c[k]);
  if (WILDCARD_HOSTS.has(c.HOST) && unset.length) {
    throw new Error(
      `HOST=${c.HOST} binds every interface, so the default public URLs would point clients at ${c.HOST}: ` +
        `set ${unset.join(' and ')} to the addresses clients reach (e.g. PUBLIC_BASE_URL=https://voice.example.com, PUBLIC_MEDIA_URL=wss://voice.example.com)`,
    );
  }
  if (env.NODE_ENV === 'production' && !c.KEYRING) {
    throw new Error(
      'KEYRING is required when NODE_ENV=production (the generated development keyring is per machine): ' +
        "set KEYRING=k1:<32 random bytes, base64>, e.g. from node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\"",
    );
  }
}
