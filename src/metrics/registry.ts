import { collectDefaultMetrics, Registry } from 'prom-client';

// One registry per process: every role in the process adds its metrics here and one
// /metrics server (server.ts) exposes them. Labels are bounded (route patterns, directions,
// outcomes, queue names): never a session, project or delivery id.

export const registry = new Registry();

let defaultsOn = false;

/**
 * Process metrics (CPU, memory, GC, event-loop lag as `nodejs_eventloop_lag_*`), started by
 * the first metrics server: a process that exposes nothing (CLI, benchmarks) runs no monitors.
 */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });
}
