import { z } from 'zod';
import type { RouteDef } from './route-def.js';

// The OpenAPI 3.1 document is generated from the very zod schemas that validate requests.

type AnyDef = RouteDef<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

const jsonSchema = (schema: z.ZodType, io: 'input' | 'output') =>
  z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const json = jsonSchema(schema, 'input') as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: where,
    required: where === 'path' || (json.required ?? []).includes(name),
    schema: s,
  }));
}

const security = (auth: AnyDef['auth']) =>
  auth === 'none' ? [] : typeof auth === 'object' ? [{ apiKey: [] }] : [{ bearer: [] }];

export class ApiDocs {
  private readonly routes: AnyDef[] = [];

  add(def: AnyDef): void {
    this.routes.push(def);
  }

  document(serverUrl: string): Record<string, unknown> {
    const paths: Record<string, Record<string, unknown>> = {};
    for (const r of this.routes) {
      const path = r.url.replace(/:([a-z_]+)/g, '{$1}');
      const op: Record<string, unknown> = {
        summary: r.summary,
        tags: [r.tag],
        security: security(r.auth),
        parameters: [
          ...parametersOf(r.params, 'path'),
          ...parametersOf(r.query, 'query'),
          ...parametersOf(r.headers, 'header'),
        ],
        responses: {
          [String(r.status)]: {
            description: 'success',
            ...(r.response ? { content: { 'application/json': { schema: jsonSchema(r.response, 'output') } } } : {}),
          },
          default: { description: 'error: {"detail": ...}' },
        },
      };
      if (typeof r.auth === 'object') op['x-required-scope'] = r.auth.scope;
      if (r.body) op.requestBody = { required: true, content: { 'application/json': { schema: jsonSchema(r.body, 'input') } } };
      (paths[path] ??= {})[r.method.toLowerCase()] = op;
    }
    return {
      openapi: '3.1.0',
      info: { title: 'Voice agent service', version: '2' },
      servers: [{ url: serverUrl }],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      paths,
    };
  }
}
