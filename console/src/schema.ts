// The agent form is built from the service's own schema: /openapi.json documents the create
// body with the same zod schemas that validate it, so new fields and bounds appear here as
// soon as the service has them.

export interface JsonSchema {
  type?: string | string[];
  enum?: unknown[];
  anyOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  description?: string;
  items?: JsonSchema;
}

let openapi: Promise<Record<string, unknown>> | null = null;

function loadOpenapi(): Promise<Record<string, unknown>> {
  openapi ??= fetch('/openapi.json').then((r) => {
    if (!r.ok) throw new Error(`could not load the API schema (${r.status})`);
    return r.json() as Promise<Record<string, unknown>>;
  });
  return openapi;
}

/** The JSON Schema of a request body: `path` in OpenAPI form (`{project_id}`). */
export async function bodySchema(path: string, method: string): Promise<JsonSchema> {
  const doc = await loadOpenapi();
  const op = (doc.paths as Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>>)[path]?.[method];
  const schema = op?.requestBody?.content['application/json']?.schema;
  if (!schema) throw new Error(`the API schema has no body for ${method.toUpperCase()} ${path}`);
  return inline(doc, schema, 0) as JsonSchema;
}

/** Replaces `$ref`s to `#/components/schemas/X` with the schemas they name (depth-limited). */
function inline(doc: Record<string, unknown>, value: unknown, depth: number): unknown {
  if (Array.isArray(value)) return value.map((v) => inline(doc, v, depth));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  const ref = obj.$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/') && depth < 12) {
    const target = ((doc.components as { schemas?: Record<string, unknown> } | undefined)?.schemas ?? {})[ref.slice('#/components/schemas/'.length)];
    const { $ref: _ref, ...rest } = obj;
    return inline(doc, { ...(target as object), ...rest }, depth + 1);
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, inline(doc, v, depth)]));
}

export interface FieldShape {
  kind: 'boolean' | 'integer' | 'number' | 'enum' | 'string' | 'json';
  nullable: boolean;
  schema: JsonSchema;
}

/** What control a property needs: the non-null branch of `anyOf` decides. */
export function shapeOf(s: JsonSchema): FieldShape {
  const branches = s.anyOf ?? [s];
  const nullable = branches.some((b) => b.type === 'null') || (Array.isArray(s.type) && s.type.includes('null'));
  const base = branches.find((b) => b.type !== 'null') ?? s;
  const type = Array.isArray(base.type) ? base.type.find((t) => t !== 'null') : base.type;
  if (base.enum) return { kind: 'enum', nullable, schema: base };
  if (type === 'boolean') return { kind: 'boolean', nullable, schema: base };
  if (type === 'integer') return { kind: 'integer', nullable, schema: base };
  if (type === 'number') return { kind: 'number', nullable, schema: base };
  if (type === 'string') return { kind: 'string', nullable, schema: base };
  return { kind: 'json', nullable, schema: base };
}

/** "name_of_field" → "Name of field". */
export function labelOf(key: string): string {
  const s = key.replace(/_/g, ' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}
