import type { Call, Query, RequestOptions, Transport } from '../http.js';
import { paginate, type ListOptions } from '../paginate.js';

// A resource is a base path on one transport. Both doors share the resource classes: the
// machine door's base is `/v2`, the console door's `/console/v2/projects/{project_id}`.

export const seg = (id: string | number): string => encodeURIComponent(String(id));

export abstract class Resource {
  constructor(protected readonly http: Transport, protected readonly base: string) {}

  protected call<T>(method: Call['method'], path: string, opts?: RequestOptions, body?: unknown, query?: Query): Promise<T> {
    return this.http.request<T>({ method, path: `${this.base}${path}`, body, query }, opts);
  }

  protected paged<T>(path: string, query: Query, opts?: ListOptions): AsyncGenerator<T, void, undefined> {
    return paginate<T>((q, o) => this.call<T[]>('GET', path, o, undefined, q), query, opts);
  }
}
