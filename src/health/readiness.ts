import type { AppContext } from '../shared/app-context.js';
import { pendingMigrations } from '../db/migrate.js';
import { pingDatabase } from '../db/repos/health.js';
import { isDraining } from '../sessions/draining.js';

// Readiness (/readyz on every role): Postgres and Redis answer within a second, the schema is
// migrated, and the process is not draining. Liveness (/healthz) only says the process is up.

export const READINESS_TIMEOUT_MS = 1000;

export type CheckName = 'postgres' | 'redis' | 'migrations' | 'draining';

export interface Readiness {
  ready: boolean;
  /** `ok`, or why the check failed. */
  checks: Record<CheckName, string>;
}

const migrated = new WeakSet<AppContext>();

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    () => 'ok',
    (err: unknown) => (err instanceof Error ? err.message : String(err)),
  );

async function checkRedis(ctx: AppContext, ms: number): Promise<void> {
  // A client that is not connected would queue the PING until Redis returns: answer at once instead.
  if (ctx.boundedRedis.status !== 'ready') throw new Error(`redis is ${ctx.boundedRedis.status}`);
  await within(ctx.boundedRedis.ping(), ms, 'redis');
}

async function checkMigrations(ctx: AppContext, ms: number): Promise<void> {
  if (migrated.has(ctx)) return; // a schema, once migrated, stays so for this process
  const pending = await within(pendingMigrations(ctx.sql), ms, 'postgres');
  if (pending.length) throw new Error(`${pending.length} migrations pending`);
  migrated.add(ctx);
}

export async function checkReadiness(ctx: AppContext, timeoutMs = READINESS_TIMEOUT_MS): Promise<Readiness> {
  const [postgres, redis, migrations] = await Promise.all([
    outcome(within(pingDatabase(ctx.sql), timeoutMs, 'postgres')),
    outcome(checkRedis(ctx, timeoutMs)),
    outcome(checkMigrations(ctx, timeoutMs)),
  ]);
  const draining = isDraining(ctx) ? 'draining' : 'ok';
  const checks = { postgres, redis, migrations, draining };
  return { ready: Object.values(checks).every((c) => c === 'ok'), checks };
}

/** The HTTP answer for a readiness probe: 200 with the checks, or 503 `{detail, checks}` naming what failed. */
export function readinessResponse(r: Readiness): { status: number; body: object } {
  if (r.ready) return { status: 200, body: { status: 'ready', checks: r.checks } };
  const failed = Object.entries(r.checks).filter(([, v]) => v !== 'ok').map(([k, v]) => `${k}: ${v}`);
  return { status: 503, body: { detail: `not ready (${failed.join('; ')})`, checks: r.checks } };
}
