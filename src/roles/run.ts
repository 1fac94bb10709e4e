import type { Role } from '../config/env.js';
import type { AppContext } from '../shared/app-context.js';
import { markDraining } from '../sessions/draining.js';
import { startMetricsServer } from '../metrics/server.js';

type Stop = () => Promise<void>;

// Loaded on demand, so a process imports only the roles it runs.
const ROLE_MODULES: Record<Role, () => Promise<{ start: (ctx: AppContext) => Promise<Stop> }>> = {
  api: () => import('./api.js'),
  media: () => import('./media.js'),
  worker: () => import('./worker.js'),
};

/**
 * Starts the process's /metrics server (one for all its roles), then the roles in order; the
 * returned function drains and stops them in reverse order, the metrics server last.
 */
export async function runRoles(ctx: AppContext, roles: readonly Role[]): Promise<Stop> {
  const metrics = await startMetricsServer(ctx.config.METRICS_PORT, ctx.config.METRICS_HOST);
  ctx.log.info({ metrics_port: metrics.port, metrics_host: ctx.config.METRICS_HOST }, 'metrics at /metrics');
  const stops: Stop[] = [() => metrics.close()];
  for (const role of roles) {
    // MEDIA_PROCESSES > 1: the media role runs as supervised child processes (media-supervisor.ts).
    const load = role === 'media' && ctx.config.MEDIA_PROCESSES > 1 ? () => import('./media-supervisor.js') : ROLE_MODULES[role];
    stops.push(await (await load()).start(ctx));
  }
  return async () => {
    // From here session admission answers 503 and the media socket refuses with 1013; the
    // media role's stop waits DRAIN_GRACE_MS, ends the remaining calls (1013) and settles them.
    markDraining(ctx);
    // Later roles (media, worker) stop first so that in-flight calls settle before the API goes.
    for (const stop of stops.reverse()) await stop().catch((err) => ctx.log.error({ err }, 'stop failed'));
  };
}
