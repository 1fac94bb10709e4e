import type { Query, RequestOptions } from './http.js';

// List routes take `limit` (at most 200) and `offset` (contract §5). A list is an async
// iterator that fetches one page at a time and stops at the first short page.

export const MAX_PAGE = 200;

export interface ListOptions extends RequestOptions {
  /** Page size (1–200, default 100). */
  pageSize?: number;
  /** Where to start (default 0). */
  offset?: number;
  /** Stop after this many items. */
  max?: number;
}

export type FetchPage<T> = (query: Query, opts: RequestOptions) => Promise<T[]>;

export async function* paginate<T>(fetchPage: FetchPage<T>, query: Query, opts: ListOptions = {}): AsyncGenerator<T, void, undefined> {
  const { pageSize = 100, offset = 0, max = Infinity, ...request } = opts;
  const limit = Math.min(MAX_PAGE, Math.max(1, pageSize));
  let seen = 0;
  for (let at = offset; ; at += limit) {
    const page = await fetchPage({ ...query, limit, offset: at }, request);
    for (const item of page) {
      if (seen++ >= max) return;
      yield item;
    }
    if (page.length < limit || seen >= max) return;
  }
}

/** Collects an async iterator into an array. */
export async function toArray<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
