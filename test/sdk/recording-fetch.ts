// A fetch that records what the SDK sends (method, path, status), and the matching of those
// requests to the operations of an OpenAPI document, for the coverage test.

export interface Sent {
  method: string;
  path: string;
  status: number;
}

export function recordingFetch(): { fetch: typeof fetch; sent: Sent[] } {
  const sent: Sent[] = [];
  const recording: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    sent.push({ method: (init?.method ?? 'GET').toUpperCase(), path: url.pathname, status: res.status });
    return res;
  };
  return { fetch: recording, sent };
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  /** Matches a concrete path; each `{param}` stands for one segment. */
  pattern: RegExp;
  /** Literal segments: the more, the more specific (`/webhooks/deliveries` beats `/webhooks/{endpoint_id}`). */
  literals: number;
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

export function operationsOf(doc: { paths: Record<string, Record<string, { operationId?: string }>> }): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, byMethod]) =>
    Object.entries(byMethod)
      .filter(([method]) => METHODS.has(method))
      .map(([method, op]) => {
        const segments = path.split('/').filter(Boolean);
        const source = segments.map((s) => (/^\{[^}]+\}$/.test(s) ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/');
        return {
          method: method.toUpperCase(),
          path,
          operationId: op.operationId ?? `${method} ${path}`,
          pattern: new RegExp(`^/${source}$`),
          literals: segments.filter((s) => !s.startsWith('{')).length,
        };
      }),
  );
}

/** The operation a request reached: the most specific one whose method and path match. */
export function operationOf(ops: Operation[], sent: Sent): Operation | undefined {
  return ops.filter((o) => o.method === sent.method && o.pattern.test(sent.path)).sort((a, b) => b.literals - a.literals)[0];
}
