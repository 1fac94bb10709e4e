// /openapi.json references its named schemas (components.schemas); tests that look into a
// request or response schema read it with the references replaced by the schemas themselves.

type Json = unknown;

export function inlineRefs<T>(doc: T): T {
  const schemas = ((doc as { components?: { schemas?: Record<string, Json> } }).components?.schemas ?? {}) as Record<string, Json>;
  const walk = (value: Json, seen: string[]): Json => {
    if (Array.isArray(value)) return value.map((v) => walk(v, seen));
    if (value === null || typeof value !== 'object') return value;
    const obj = value as Record<string, Json>;
    const ref = obj.$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
      const name = ref.slice('#/components/schemas/'.length);
      if (seen.includes(name)) return value;
      const { $ref: _ref, ...rest } = obj;
      return { ...(walk(schemas[name], [...seen, name]) as object), ...(walk(rest, seen) as object) };
    }
    return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, walk(v, seen)]));
  };
  return walk(doc, []) as T;
}
