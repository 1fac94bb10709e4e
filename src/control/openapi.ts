import { z } from 'zod';
import { apiSchemas, ErrorBody, ValidationErrorBody } from '../contract/api-schemas.js';
import type { RouteDef } from './route-def.js';
import { errorResponses, errorStatuses, sharedComponents, successHeaders } from './openapi-parts.js';

// The OpenAPI 3.1 document is generated from the very zod schemas that validate requests and
// serialize responses. Schemas named in contract/api-schemas.ts become components.schemas and
// are referenced; a schema whose request (input) form differs from its response (output) form
// is emitted twice, the request form as `<Name>Input`.

type AnyDef = RouteDef<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;
type Io = 'input' | 'output';
type Json = Record<string, unknown>;

const DEFS = '#/$defs/';
const COMPONENTS = '#/components/schemas/';

/** Tag descriptions (Redocly wants every tag described). */
const TAGS: Record<string, string> = {
  agents: 'Voice agents and their versions',
  'voice sessions': 'Media sessions, outbound calls and their transcripts',
  webhooks: 'Webhook endpoints and dead letters',
  providers: 'The provider catalogue',
  'provider accounts': 'Bring-your-own-key provider accounts (console)',
  'console auth': 'Accounts and console sessions',
  projects: 'Projects (console)',
  'api keys': 'Machine-door API keys (console)',
  'publishable keys': 'Publishable keys for browser calls (console)',
  wallet: 'Prepaid wallet (console)',
  carriers: 'Carrier connections (console)',
  'carrier numbers': 'Phone numbers of carrier connections (console)',
};

/** A stable camelCase name from method and path, for routes that do not name themselves. */
export function derivedOperationId(method: string, url: string): string {
  const words = url
    .split('/')
    .filter((seg) => seg && !seg.startsWith(':') && seg !== 'v2')
    .flatMap((seg) => seg.split(/[^A-Za-z0-9]+/))
    .filter(Boolean);
  const camel = [method.toLowerCase(), ...words].map((w, i) => (i === 0 ? w : w[0].toUpperCase() + w.slice(1))).join('');
  return camel.replace(/[^A-Za-z0-9]/g, '');
}

/** Replaces zod's local `#/$defs/X` references with component references (`rename` per io). */
function rewriteRefs(value: unknown, rename: (name: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => rewriteRefs(v, rename));
  if (value === null || typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    out[k] = k === '$ref' && typeof v === 'string' && v.startsWith(DEFS) ? COMPONENTS + rename(v.slice(DEFS.length)) : rewriteRefs(v, rename);
  }
  return out;
}

class SchemaCollector {
  private readonly defs: Record<Io, Map<string, Json>> = { input: new Map(), output: new Map() };
  private readonly pending: { io: Io; json: Json; place: (json: Json) => void }[] = [];

  /** Converts `schema`; the named schemas it uses are collected, references fixed in `finish`. */
  schema(schema: z.ZodType, io: Io, place: (json: Json) => void): void {
    const json = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12', metadata: apiSchemas }) as Json;
    const { $schema: _schema, $defs, ...root } = json as Json & { $defs?: Record<string, Json> };
    for (const [name, def] of Object.entries($defs ?? {})) this.defs[io].set(name, def);
    this.pending.push({ io, json: root, place });
  }

  /** Places every converted schema and returns components.schemas. */
  finish(): Record<string, Json> {
    const names = new Set([...this.defs.input.keys(), ...this.defs.output.keys()]);
    const split = new Set<string>();
    for (const name of names) {
      const i = this.defs.input.get(name);
      const o = this.defs.output.get(name);
      if (i && o && JSON.stringify(i) !== JSON.stringify(o)) split.add(name);
    }
    const rename = (io: Io) => (name: string) => (io === 'input' && split.has(name) ? `${name}Input` : name);
    for (const p of this.pending) p.place(rewriteRefs(p.json, rename(p.io)) as Json);
    const components: Record<string, Json> = {};
    for (const io of ['output', 'input'] as const) {
      for (const [name, def] of this.defs[io]) components[rename(io)(name)] ??= rewriteRefs(def, rename(io)) as Json;
    }
    return Object.fromEntries(Object.entries(components).sort(([a], [b]) => a.localeCompare(b)));
  }
}

// Headers documented by security schemes or shared parameters, not per route.
const UNDOCUMENTED_HEADERS = new Set(['x-publishable-key', 'origin', 'idempotency-key']);

function parametersOf(schema: z.ZodType | undefined, where: 'path' | 'query' | 'header') {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {})
    .filter(([name]) => where !== 'header' || !UNDOCUMENTED_HEADERS.has(name.toLowerCase()))
    .map(([name, s]) => ({
      name,
      in: where,
      required: where === 'path' || (json.required ?? []).includes(name),
      schema: s,
    }));
}

const securityOf = (r: AnyDef) =>
  r.security ?? (r.auth === 'none' ? [] : typeof r.auth === 'object' ? [{ apiKey: [] }] : [{ bearer: [] }]);

export class ApiDocs {
  private readonly routes: AnyDef[] = [];

  add(def: AnyDef): void {
    this.routes.push(def);
  }

  /** Every declared operation (for tests that walk them). */
  operations(): readonly AnyDef[] {
    return this.routes;
  }

  document(serverUrl: string): Json {
    const paths: Record<string, Json> = {};
    const schemas = new SchemaCollector();
    const usedTags = new Set<string>();
    for (const r of this.routes) {
      const path = r.url.replace(/:([a-z_]+)/g, '{$1}');
      const machine = typeof r.auth === 'object';
      const success: Json = { description: 'success', headers: successHeaders(machine, Boolean(r.idempotent)) };
      if (r.response) {
        const content: Json = {};
        schemas.schema(r.response, 'output', (json) => (content.schema = json));
        success.content = { 'application/json': content };
      }
      const op: Json = {
        operationId: r.operationId ?? derivedOperationId(r.method, r.url),
        summary: r.summary,
        tags: [r.tag],
        security: securityOf(r),
        parameters: [
          ...parametersOf(r.params, 'path'),
          ...parametersOf(r.query, 'query'),
          ...parametersOf(r.headers, 'header'),
          ...(r.idempotent ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
        ],
        responses: { [String(r.status)]: success, ...errorResponses(errorStatuses(r)) },
      };
      usedTags.add(r.tag);
      if (machine) op['x-required-scope'] = (r.auth as { scope: string }).scope;
      if (r.body) {
        const content: Json = {};
        schemas.schema(r.body, 'input', (json) => (content.schema = json));
        op.requestBody = { required: true, content: { 'application/json': content } };
      }
      (paths[path] ??= {})[r.method.toLowerCase()] = op;
    }
    // The error bodies every error response references.
    schemas.schema(ErrorBody, 'output', () => {});
    schemas.schema(ValidationErrorBody, 'output', () => {});
    const shared = sharedComponents();
    return {
      openapi: '3.1.0',
      info: {
        title: 'Voice agent service',
        version: '2',
        description: 'Machine door (`/v2`, `X-Api-Key`) and console door (`/console/v2`, bearer session). Errors are `{"detail": ...}`.',
      },
      servers: [{ url: serverUrl }],
      tags: [...usedTags].sort().map((name) => ({ name, description: TAGS[name] ?? name })),
      paths,
      components: { ...shared, schemas: schemas.finish() },
    };
  }
}
