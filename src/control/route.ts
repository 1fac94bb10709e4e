import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../shared/app-context.js';
import { errors } from '../shared/errors.js';
import { authenticateApiKey, requireScope, type ApiKeyCaller } from './auth/api-key.js';
import { authenticateBearer, loadOwnedProject, type ConsoleCaller } from './auth/console-session.js';
import { rateHeaders, takeRequest } from './auth/rate-limit.js';
import type { AuthKind, Caller, Out, RouteDef, RouteInput, Schema } from './route-def.js';
import type { Scope } from '../contract/scopes.js';
import type { ApiDocs } from './openapi.js';
import { parseInput, ProjectPath } from '../contract/validation.js';
import { IDEMPOTENCY_HEADER, IdempotencyHeaders } from '../contract/idempotency.js';
import { runIdempotent, type Answer } from './idempotency.js';

// Every route is declared once with its zod schemas: the same declaration validates the
// request, authenticates the caller and documents the route in /openapi.json.

export type { AuthKind, Caller, Method, RouteDef, RouteInput } from './route-def.js';

export interface Router {
  app: FastifyInstance;
  ctx: AppContext;
  docs: ApiDocs;
}

async function authenticate(router: Router, auth: AuthKind, req: FastifyRequest, reply: FastifyReply): Promise<Caller> {
  if (auth === 'none') return null;
  if (auth === 'console' || auth === 'console-unverified') {
    return authenticateBearer(router.ctx, req.headers.authorization, { allowUnverified: auth === 'console-unverified' });
  }
  const caller = await authenticateApiKey(router.ctx, req.headers['x-api-key']);
  const window = await takeRequest(router.ctx, `project:${caller.projectId}`, caller.apiRpm);
  reply.headers(rateHeaders(window));
  if (window.exceeded) throw errors.rateLimited(window.resetSeconds);
  requireScope(caller, auth.scope);
  return caller;
}

/** The project an idempotent request belongs to, and what identifies the request within it. */
export interface IdempotencyScope {
  projectId: string;
  operation: string;
  params: unknown;
}

export interface DefineOptions<B extends Schema, Q extends Schema, P extends Schema, H extends Schema> {
  /** For `idempotent` routes: where their keys live (defineProjectRoute supplies it). */
  idempotencyScope?: (input: RouteInput<B, Q, P, H>) => IdempotencyScope;
}

/**
 * The body exactly as documented: parsed through the route's response schema (unknown fields
 * dropped). A handler whose result does not match is a bug: 500, logged with the route.
 */
function serialize(router: Router, def: { url: string; response?: z.ZodType }, result: unknown): unknown {
  if (!def.response) return result;
  const parsed = def.response.safeParse(JSON.parse(JSON.stringify(result ?? null)));
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.slice(0, 5).map((i) => ({ path: i.path.map(String), code: i.code, message: i.message }));
  router.ctx.log.error({ route: def.url, issues }, 'response does not match its schema');
  throw new Error(`response of ${def.url} does not match its schema`);
}

export function defineRoute<B extends Schema, Q extends Schema, P extends Schema, H extends Schema = undefined>(
  router: Router,
  def: RouteDef<B, Q, P, H>,
  handler: (input: RouteInput<B, Q, P, H>) => Promise<unknown>,
  opts: DefineOptions<B, Q, P, H> = {},
): void {
  router.docs.add(def);
  router.app.route({
    method: def.method,
    url: def.url,
    handler: async (req, reply) => {
      const caller = await authenticate(router, def.auth, req, reply);
      if (def.authorize) await def.authorize(caller, req.params as Record<string, unknown>);
      // Path first: a malformed id is reported before anything about the body.
      const params = (def.params ? parseInput(def.params, req.params, 'path') : undefined) as Out<P>;
      const headers = (def.headers ? parseInput(def.headers, req.headers, 'header') : undefined) as Out<H>;
      const key = def.idempotent ? parseInput(IdempotencyHeaders, req.headers, 'header')[IDEMPOTENCY_HEADER] : undefined;
      const query = (def.query ? parseInput(def.query, req.query, 'query') : undefined) as Out<Q>;
      const body = (def.body ? parseInput(def.body, req.body, 'body') : undefined) as Out<B>;
      const input = { body, query, params, headers, caller, req, reply };
      const answer = async (): Promise<Answer> => ({ status: def.status, body: serialize(router, def, await handler(input)) });
      if (key !== undefined && opts.idempotencyScope) {
        const scope = opts.idempotencyScope(input);
        const replay = typeof def.idempotent === 'object' ? def.idempotent.replay : undefined;
        return runIdempotent(router.ctx, reply, { projectId: scope.projectId, key, request: { operation: scope.operation, params: scope.params, body }, replay }, answer);
      }
      const out = await answer();
      reply.code(out.status);
      return out.body;
    },
  });
}

export interface ProjectCaller {
  door: 'machine' | 'console';
  projectId: string;
  accountId: string | null;
}

type ObjectSchema = z.ZodObject | undefined;

export interface ProjectRouteDef<B extends Schema, Q extends Schema, P extends ObjectSchema, H extends Schema>
  extends Omit<RouteDef<B, Q, P, H>, 'url' | 'auth'> {
  /** Path below the project, e.g. `/agents/:agent_id`. */
  path: string;
  scope: Scope;
  /** Machine-door path names the project (`/v2/projects/:project_id/...`), as webhooks do. */
  machineProjectInPath?: boolean;
}

/**
 * Registers one operation on both doors: `/v2{path}` (API key with `scope`) and
 * `/console/v2/projects/:project_id{path}` (account session, project owned by the account).
 * `params` must not include project_id: it is handled here.
 */
export function defineProjectRoute<B extends Schema, Q extends Schema, P extends ObjectSchema, H extends Schema = undefined>(
  router: Router,
  def: ProjectRouteDef<B, Q, P, H>,
  handler: (input: RouteInput<B, Q, P, H> & { project: ProjectCaller }) => Promise<unknown>,
): void {
  const withProject = def.params ? ProjectPath.extend(def.params.shape) : ProjectPath;
  const machineUrl = def.machineProjectInPath ? `/v2/projects/:project_id${def.path}` : `/v2${def.path}`;
  const machineParams = def.machineProjectInPath ? withProject : def.params;

  const operation = `${def.method} ${def.path}`;
  const machineDef = {
    ...def,
    url: machineUrl,
    auth: { scope: def.scope },
    params: machineParams,
    // Another project's id in the path is indistinguishable from a missing project.
    authorize: async (caller: Caller, raw: Record<string, unknown>) => {
      if (!def.machineProjectInPath) return;
      const parsed = ProjectPath.safeParse({ project_id: raw.project_id });
      if (parsed.success && parsed.data.project_id.toLowerCase() !== (caller as ApiKeyCaller).projectId) {
        throw errors.notFound('project not found');
      }
    },
  };
  defineRoute(router, machineDef, async (input) => {
    const caller = input.caller as ApiKeyCaller;
    const { project_id: _inPath, ...params } = (input.params ?? {}) as Record<string, unknown>;
    const project: ProjectCaller = { door: 'machine', projectId: caller.projectId, accountId: null };
    return handler({ ...input, params: params as Out<P>, project });
  }, {
    // Keys belong to the project, whichever door a request comes through.
    idempotencyScope: (input) => {
      const { project_id: _inPath, ...params } = (input.params ?? {}) as Record<string, unknown>;
      return { projectId: (input.caller as ApiKeyCaller).projectId, operation, params };
    },
  });

  defineRoute(
    router,
    {
      ...def,
      url: `/console/v2/projects/:project_id${def.path}`,
      operationId: def.operationId && `console${def.operationId[0].toUpperCase()}${def.operationId.slice(1)}`,
      auth: 'console',
      params: withProject,
      // Ownership before validation: another owner's project answers 404 whatever the body.
      authorize: async (caller, raw) => {
        const parsed = ProjectPath.safeParse({ project_id: raw.project_id });
        if (parsed.success) await loadOwnedProject(router.ctx, (caller as ConsoleCaller).accountId, parsed.data.project_id);
      },
    },
    async (input) => {
      const caller = input.caller as ConsoleCaller;
      const { project_id, ...params } = input.params as Record<string, unknown>;
      const projectId = String(project_id).toLowerCase();
      const project: ProjectCaller = { door: 'console', projectId, accountId: caller.accountId };
      return handler({ ...input, params: params as Out<P>, project });
    },
    {
      idempotencyScope: (input) => {
        const { project_id, ...params } = input.params as Record<string, unknown>;
        return { projectId: String(project_id).toLowerCase(), operation, params };
      },
    },
  );
}
