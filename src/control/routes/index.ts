import type { Router } from '../route.js';
import { authRoutes } from './auth/index.js';
import { projectRoutes } from './projects/index.js';
import { publishableKeyRoutes } from './publishable-keys/index.js';
import { browserSessionRoutes } from './browser-sessions/index.js';
import { providerRoutes } from './providers/index.js';
import { providerAccountRoutes } from './provider-accounts/index.js';
import { agentRoutes } from './agents/index.js';
import { voiceSessionRoutes } from './voice-sessions/index.js';
import { walletRoutes } from './wallet/index.js';
import { webhookRoutes } from './webhooks/index.js';
import { carrierRoutes } from './carriers/index.js';
import { callPageRoutes } from './call-page.js';
import { consolePages } from './console-pages.js';
import { webhookDeliveryRoutes } from './webhook-deliveries/index.js';
import { campaignRoutes } from './campaigns/index.js';

/** Every resource's routes; each resource lives in its own folder. */
export function registerRoutes(router: Router): void {
  authRoutes(router);
  projectRoutes(router);
  publishableKeyRoutes(router);
  browserSessionRoutes(router);
  providerRoutes(router);
  providerAccountRoutes(router);
  agentRoutes(router);
  voiceSessionRoutes(router);
  walletRoutes(router);
  webhookRoutes(router);
  carrierRoutes(router);
  callPageRoutes(router.app, router.ctx);
  webhookDeliveryRoutes(router);
  campaignRoutes(router);
  consolePages(router);
}
