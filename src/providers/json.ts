// Provider payloads are untrusted: parsed as `unknown`, then narrowed (a guard here, or a small
// zod schema in the adapter that reads them) before any field is used.

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON text that must hold an object; throws otherwise (the caller reports a protocol error). */
export function parseJsonObject(text: string): Record<string, unknown> {
  const v: unknown = JSON.parse(text);
  if (!isObject(v)) throw new Error('not a JSON object');
  return v;
}
