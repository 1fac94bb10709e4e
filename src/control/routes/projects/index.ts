import { z } from 'zod';
import { createApiKey, listApiKeys, revokeApiKey } from '../../../db/repos/api-keys.js';
import { createProject, getOwnedProject, listProjects, renameProject } from '../../../db/repos/projects.js';
import type { ConsoleCaller } from '../../auth/console-session.js';
import { defineRoute, type Router } from '../../route.js';
import { ApiKeyCreateBody, ApiKeyInfo, CreatedApiKey, ProjectCreateBody, ProjectInfo, ProjectUpdateBody } from '../../../contract/identity.js';
import { paging, ProjectPath } from '../../../contract/validation.js';

const KeyPath = ProjectPath.extend({ id: z.uuid() });
const Paging = z.strictObject(paging);

export function projectRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'projects';
  const account = (caller: unknown) => (caller as ConsoleCaller).accountId;

  defineRoute(router, { method: 'GET', url: '/console/v2/projects', operationId: 'listProjects', summary: 'List projects', tag, auth: 'console', query: Paging, status: 200, response: z.array(ProjectInfo) }, async ({ caller, query }) =>
    listProjects(ctx, account(caller), query.limit, query.offset));

  defineRoute(router, { method: 'POST', url: '/console/v2/projects', operationId: 'createProject', summary: 'Create a project', tag, auth: 'console', body: ProjectCreateBody, status: 201, response: ProjectInfo }, async ({ caller, body }) =>
    createProject(ctx, account(caller), body.name));

  defineRoute(router, { method: 'GET', url: '/console/v2/projects/:project_id', operationId: 'getProject', summary: 'Get a project', tag, auth: 'console', params: ProjectPath, status: 200, response: ProjectInfo }, async ({ caller, params }) =>
    getOwnedProject(ctx, account(caller), params.project_id));

  defineRoute(router, { method: 'PATCH', url: '/console/v2/projects/:project_id', operationId: 'renameProject', summary: 'Rename a project', tag, auth: 'console', params: ProjectPath, body: ProjectUpdateBody, status: 200, response: ProjectInfo }, async ({ caller, params, body }) =>
    renameProject(ctx, account(caller), params.project_id, body.name));

  const keyTag = 'api keys';
  defineRoute(router, { method: 'POST', url: '/console/v2/projects/:project_id/api-keys', operationId: 'createApiKey', summary: 'Create an API key (shown once)', tag: keyTag, auth: 'console', params: ProjectPath, body: ApiKeyCreateBody, status: 201, response: CreatedApiKey }, async ({ caller, params, body }) => {
    await getOwnedProject(ctx, account(caller), params.project_id);
    return createApiKey(ctx, params.project_id, body.name, body.scopes);
  });

  defineRoute(router, { method: 'GET', url: '/console/v2/projects/:project_id/api-keys', operationId: 'listApiKeys', summary: 'List API keys', tag: keyTag, auth: 'console', params: ProjectPath, query: Paging, status: 200, response: z.array(ApiKeyInfo) }, async ({ caller, params, query }) => {
    await getOwnedProject(ctx, account(caller), params.project_id);
    return listApiKeys(ctx, params.project_id, query.limit, query.offset);
  });

  defineRoute(router, { method: 'DELETE', url: '/console/v2/projects/:project_id/api-keys/:id', operationId: 'revokeApiKey', summary: 'Revoke an API key', tag: keyTag, auth: 'console', params: KeyPath, status: 200, response: ApiKeyInfo }, async ({ caller, params }) => {
    await getOwnedProject(ctx, account(caller), params.project_id);
    return revokeApiKey(ctx, params.project_id, params.id);
  });
}
