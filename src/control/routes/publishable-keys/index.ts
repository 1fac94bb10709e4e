import { z } from 'zod';
import { getOwnedProject, getProjectCallLimits } from '../../../db/repos/projects.js';
import {
  createPublishableKey,
  listPublishableKeys,
  revokePublishableKey,
  rotatePublishableKey,
  updatePublishableKey,
} from '../../../db/repos/publishable-keys.js';
import { fieldError } from '../../../shared/errors.js';
import type { ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Router } from '../../route.js';
import {
  CreatedPublishableKey,
  KEY_DEFAULT_CONNECT_WINDOW_SECONDS,
  KEY_DEFAULT_MAX_CONCURRENT_SESSIONS,
  KEY_DEFAULT_MAX_DURATION_SECONDS,
  PublishableKeyCreateBody,
  PublishableKeyInfo,
  PublishableKeyUpdateBody,
} from '../../../contract/publishable-keys.js';
import { paging, ProjectPath } from '../../../contract/validation.js';

const KeyPath = ProjectPath.extend({ id: z.uuid() });

/** Minting, listing, rotating and revoking publishable keys is console (account) work only. */
export function publishableKeyRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'publishable keys';
  const base = '/console/v2/projects/:project_id/publishable-keys';
  const owned = (caller: unknown, projectId: string) => getOwnedProject(ctx, (caller as ConsoleCaller).accountId, projectId);
  /** Contract §11: a key's budget is never above its project's concurrency limit (422). */
  const projectCap = async (projectId: string, asked: number | undefined): Promise<number> => {
    const { max_concurrent_sessions: cap } = await getProjectCallLimits(ctx.sql, projectId);
    if (asked === undefined) return Math.min(KEY_DEFAULT_MAX_CONCURRENT_SESSIONS, cap);
    if (asked > cap) throw fieldError(['body', 'max_concurrent_sessions'], `must not exceed the project's max_concurrent_sessions (${cap})`, 'less_than_equal');
    return asked;
  };

  defineRoute(router, { method: 'POST', url: base, operationId: 'createPublishableKey', summary: 'Create a publishable key (shown once)', tag, auth: 'console', params: ProjectPath, body: PublishableKeyCreateBody, status: 201, response: CreatedPublishableKey }, async ({ caller, params, body }) => {
    await owned(caller, params.project_id);
    const max = await projectCap(params.project_id, body.max_concurrent_sessions);
    return createPublishableKey(ctx, params.project_id, {
      ...body,
      max_concurrent_sessions: max,
      connect_window_seconds: body.connect_window_seconds ?? KEY_DEFAULT_CONNECT_WINDOW_SECONDS,
      max_duration_seconds: body.max_duration_seconds ?? KEY_DEFAULT_MAX_DURATION_SECONDS,
    });
  });
  defineRoute(router, { method: 'PATCH', url: `${base}/:id`, operationId: 'updatePublishableKey', summary: "Change a publishable key's name, origins, agents or limits (only sent fields change)", tag, auth: 'console', params: KeyPath, body: PublishableKeyUpdateBody, status: 200, response: PublishableKeyInfo }, async ({ caller, params, body }) => {
    await owned(caller, params.project_id);
    if (body.max_concurrent_sessions !== undefined) await projectCap(params.project_id, body.max_concurrent_sessions);
    return updatePublishableKey(ctx, params.project_id, params.id, body);
  });
  defineRoute(router, { method: 'GET', url: base, operationId: 'listPublishableKeys', summary: 'List publishable keys', tag, auth: 'console', params: ProjectPath, query: z.strictObject(paging), status: 200, response: z.array(PublishableKeyInfo) }, async ({ caller, params, query }) => {
    await owned(caller, params.project_id);
    return listPublishableKeys(ctx, params.project_id, query.limit, query.offset);
  });
  defineRoute(router, { method: 'DELETE', url: `${base}/:id`, operationId: 'revokePublishableKey', summary: 'Revoke a publishable key', tag, auth: 'console', params: KeyPath, status: 200, response: PublishableKeyInfo }, async ({ caller, params }) => {
    await owned(caller, params.project_id);
    return revokePublishableKey(ctx, params.project_id, params.id);
  });
  defineRoute(router, { method: 'POST', url: `${base}/:id/rotate`, operationId: 'rotatePublishableKey', summary: 'Rotate a publishable key (new key shown once)', tag, auth: 'console', params: KeyPath, status: 200, response: CreatedPublishableKey }, async ({ caller, params }) => {
    await owned(caller, params.project_id);
    return rotatePublishableKey(ctx, params.project_id, params.id);
  });
}
