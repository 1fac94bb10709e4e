import type { AppContext } from '../shared/app-context.js';

// A draining process stops admitting sessions (503) and accepting media connections (1013).
// The flag is per process (per context): on SIGTERM main.ts marks it before stopping roles.
const draining = new WeakSet<AppContext>();

export function markDraining(ctx: AppContext): void {
  draining.add(ctx);
}

export function isDraining(ctx: AppContext): boolean {
  return draining.has(ctx);
}
