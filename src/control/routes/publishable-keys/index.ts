import { z } from 'zod';
import { getOwnedProject } from '../../../db/repos/projects.js';
import {
  createPublishableKey,
  listPublishableKeys,
  revokePublishableKey,
  rotatePublishableKey,
} from '../../../db/repos/publishable-keys.js';
import type { ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Router } from '../../route.js';
import { CreatedPublishableKey, PublishableKeyCreateBody, PublishableKeyInfo } from '../../../contract/publishable-keys.js';
import { paging, ProjectPath } from '../../../contract/validation.js';

const KeyPath = ProjectPath.extend({ id: z.uuid() });

/** Minting, listing, rotating and revoking publishable keys is console (account) work only. */
export function publishableKeyRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'publishable keys';
  const base = '/console/v2/projects/:project_id/publishable-keys';
  const owned = (caller: unknown, projectId: string) => getOwnedProject(ctx, (caller as ConsoleCaller).accountId, projectId);

  defineRoute(router, { method: 'POST', url: base, summary: 'Create a publishable key (shown once)', tag, auth: 'console', params: ProjectPath, body: PublishableKeyCreateBody, status: 201, response: CreatedPublishableKey }, async ({ caller, params, body }) => {
    await owned(caller, params.project_id);
    return createPublishableKey(ctx, params.project_id, body);
  });
  defineRoute(router, { method: 'GET', url: base, summary: 'List publishable keys', tag, auth: 'console', params: ProjectPath, query: z.strictObject(paging), status: 200, response: z.array(PublishableKeyInfo) }, async ({ caller, params, query }) => {
    await owned(caller, params.project_id);
    return listPublishableKeys(ctx, params.project_id, query.limit, query.offset);
  });
  defineRoute(router, { method: 'DELETE', url: `${base}/:id`, summary: 'Revoke a publishable key', tag, auth: 'console', params: KeyPath, status: 200, response: PublishableKeyInfo }, async ({ caller, params }) => {
    await owned(caller, params.project_id);
    return revokePublishableKey(ctx, params.project_id, params.id);
  });
  defineRoute(router, { method: 'POST', url: `${base}/:id/rotate`, summary: 'Rotate a publishable key (new key shown once)', tag, auth: 'console', params: KeyPath, status: 200, response: CreatedPublishableKey }, async ({ caller, params }) => {
    await owned(caller, params.project_id);
    return rotatePublishableKey(ctx, params.project_id, params.id);
  });
}
