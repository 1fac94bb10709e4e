import { z } from 'zod';
import { createAgent, deleteAgent, rotateAgentSecret, updateAgent } from '../../../agents/service.js';
import { getAgentRow, getAgentVersion, listAgentRows, toAgentInfo } from '../../../db/repos/agents.js';
import { defineProjectRoute, type Router } from '../../route.js';
import { AgentCreateBody, AgentDeleted, AgentInfo, AgentUpdateBody, CreatedAgent } from '../../../contract/agents.js';
import { paging, queryBool } from '../../../contract/validation.js';

// Agents on both doors: /v2/agents... (API key) and /console/v2/projects/:project_id/agents... (session).

const AgentPath = z.object({ agent_id: z.uuid() });
const VersionPath = AgentPath.extend({
  version: z.string().regex(/^\d{1,9}$/, 'must be a positive integer').transform(Number).pipe(z.number().int().min(1)),
});
const ListQuery = z.strictObject({ ...paging, include_inactive: queryBool.default(false) });

export function agentRoutes(router: Router): void {
  const { ctx } = router;
  const tag = 'agents';
  const id = (p: { agent_id: string }) => p.agent_id.toLowerCase();

  defineProjectRoute(router, { method: 'GET', path: '/agents', operationId: 'listAgents', summary: 'List agents (newest first)', tag, scope: 'voice:read', query: ListQuery, status: 200, response: z.array(AgentInfo) }, async ({ project, query }) => {
    const rows = await listAgentRows(ctx.sql, project.projectId, { limit: query.limit, offset: query.offset, includeInactive: query.include_inactive });
    return rows.map(toAgentInfo);
  });

  defineProjectRoute(router, { method: 'POST', path: '/agents', operationId: 'createAgent', summary: 'Create an agent (the webhook secret is returned once)', errors: [409], idempotent: true, tag, scope: 'voice:write', body: AgentCreateBody, status: 201, response: CreatedAgent }, async ({ project, body }) =>
    createAgent(ctx, project.projectId, body));

  defineProjectRoute(router, { method: 'GET', path: '/agents/:agent_id', operationId: 'getAgent', summary: 'Get an agent', tag, scope: 'voice:read', params: AgentPath, status: 200, response: AgentInfo }, async ({ project, params }) =>
    toAgentInfo(await getAgentRow(ctx.sql, project.projectId, id(params))));

  defineProjectRoute(router, { method: 'PATCH', path: '/agents/:agent_id', operationId: 'updateAgent', summary: 'Change an agent (only sent fields change; version increments)', errors: [409], tag, scope: 'voice:write', params: AgentPath, body: AgentUpdateBody, status: 200, response: AgentInfo }, async ({ project, params, body }) =>
    updateAgent(ctx, project.projectId, id(params), body));

  defineProjectRoute(router, { method: 'DELETE', path: '/agents/:agent_id', operationId: 'deleteAgent', summary: 'Deactivate an agent', errors: [409], tag, scope: 'voice:write', params: AgentPath, status: 200, response: AgentDeleted }, async ({ project, params }) =>
    deleteAgent(ctx, project.projectId, id(params)));

  defineProjectRoute(router, { method: 'POST', path: '/agents/:agent_id/rotate-secret', operationId: 'rotateAgentSecret', summary: 'Replace the webhook secret (returned once)', errors: [409], tag, scope: 'voice:write', params: AgentPath, status: 200, response: CreatedAgent }, async ({ project, params }) =>
    rotateAgentSecret(ctx, project.projectId, id(params)));

  defineProjectRoute(router, { method: 'GET', path: '/agents/:agent_id/versions/:version', operationId: 'getAgentVersion', summary: 'Get an agent exactly as it was at a version', tag, scope: 'voice:read', params: VersionPath, status: 200, response: AgentInfo }, async ({ project, params }) =>
    getAgentVersion(ctx.sql, project.projectId, id(params), params.version));
}
