import type { Router } from '../route.js';
import { authRoutes } from './auth/index.js';
import { projectRoutes } from './projects/index.js';

/** Every resource's routes; each resource lives in its own folder. */
export function registerRoutes(router: Router): void {
  authRoutes(router);
  projectRoutes(router);
}
