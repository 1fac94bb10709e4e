import { CATALOGUE } from '../../../contract/catalogue.js';
import { defineRoute, type Router } from '../../route.js';
import { CatalogueInfo } from '../../../contract/providers.js';

/** The provider catalogue on both doors (contract §3). */
export function providerRoutes(router: Router): void {
  const tag = 'providers';
  const summary = 'List providers, their stages and model ids';
  defineRoute(router, { method: 'GET', url: '/v2/providers/catalogue', operationId: 'getProviderCatalogue', summary, tag, auth: { scope: 'voice:read' }, status: 200, response: CatalogueInfo }, async () => CATALOGUE);
  defineRoute(router, { method: 'GET', url: '/console/v2/providers/catalogue', operationId: 'consoleGetProviderCatalogue', summary, tag, auth: 'console', status: 200, response: CatalogueInfo }, async () => CATALOGUE);
}
