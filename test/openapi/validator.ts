import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// Checks a real response against /openapi.json: the operation it answers (method and path
// template), a documented status, a body valid against the documented schema (ajv, JSON Schema
// 2020-12 as OpenAPI 3.1 uses), and the headers contract §8 promises.

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  responses: Record<string, { $ref?: string; content?: Json; headers?: Json }>;
  security?: Record<string, unknown>[];
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { responses: Record<string, { content?: Json; headers?: Json }> };
}

export interface Checked {
  operationId: string;
  status: number;
  problems: string[];
}

const pointer = (...parts: string[]) => parts.map((p) => encodeURIComponent(p.replace(/~/g, '~0').replace(/\//g, '~1'))).join('/');

export class DocValidator {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly templates: { path: string; re: RegExp; params: number }[];

  constructor(private readonly doc: Doc) {
    addFormats(this.ajv);
    this.ajv.addSchema(doc as unknown as Json, 'doc');
    this.templates = Object.keys(doc.paths).map((path) => ({
      path,
      re: new RegExp(`^${path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
      params: (path.match(/\{/g) ?? []).length,
    }));
  }

  /** The documented operation a request hits: literal segments win over parameters. */
  find(method: string, url: string): { path: string; op: Operation } | null {
    const m = method.toLowerCase();
    const path = url.split('?')[0];
    const hit = this.templates.filter((t) => t.re.test(path) && this.doc.paths[t.path][m]).sort((a, b) => a.params - b.params)[0];
    return hit ? { path: hit.path, op: this.doc.paths[hit.path][m] } : null;
  }

  check(method: string, url: string, res: { statusCode: number; headers: Record<string, unknown>; body: string }): Checked {
    const found = this.find(method, url);
    if (!found) return { operationId: `(undocumented ${method} ${url})`, status: res.statusCode, problems: ['no documented operation'] };
    const { path, op } = found;
    const problems: string[] = [];
    const status = String(res.statusCode);
    const declared = op.responses[status];
    if (!declared) return { operationId: op.operationId, status: res.statusCode, problems: [`status ${status} not documented`] };
    const base = declared.$ref
      ? `doc#/components/responses/${declared.$ref.split('/').pop()!}`
      : `doc#/${pointer('paths', path, method.toLowerCase(), 'responses', status)}`;
    const response = declared.$ref ? this.doc.components.responses[declared.$ref.split('/').pop()!] : declared;
    if (response.content) {
      const validate = this.ajv.getSchema(`${base}/content/${pointer('application/json')}/schema`);
      if (!validate) problems.push('schema not found');
      else {
        let body: unknown;
        try {
          body = JSON.parse(res.body);
        } catch {
          problems.push('body is not JSON');
        }
        if (body !== undefined && !validate(body)) problems.push(...(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`));
      }
    } else if (res.body.length > 0 && res.statusCode !== 200) {
      problems.push('body sent where none is documented');
    }
    const machine = op.security?.some((s) => 'apiKey' in s) ?? false;
    if (machine && res.statusCode < 300 && !res.headers['x-ratelimit-remaining']) problems.push('X-RateLimit-* missing');
    if (res.statusCode === 429 && !res.headers['retry-after']) problems.push('Retry-After missing');
    for (const name of Object.keys(response.headers ?? {})) {
      if (name === 'Idempotent-Replayed' || name === 'Retry-After' || name.startsWith('X-RateLimit')) continue;
      if (!(name.toLowerCase() in res.headers)) problems.push(`header ${name} missing`);
    }
    return { operationId: op.operationId, status: res.statusCode, problems };
  }
}
