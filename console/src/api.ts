import { clearTokens, getAccessToken, refresh } from './auth';
import { currentPath, navigate } from './router';

// Every call to the service goes through here: the bearer token, one silent refresh on a 401,
// and the service's error shape ({"detail": string} or, for 422, [{loc, msg, type}]).

export interface FieldIssue {
  loc: (string | number)[];
  msg: string;
  type: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string | FieldIssue[],
  ) {
    super(typeof detail === 'string' ? detail : detail.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '));
  }

  /** Field errors keyed by their location below the body, e.g. `pipeline_config.stt.model`. */
  fieldErrors(): Record<string, string> {
    if (typeof this.detail === 'string') return {};
    const out: Record<string, string> = {};
    for (const d of this.detail) {
      const key = (d.loc[0] === 'body' ? d.loc.slice(1) : d.loc).join('.');
      out[key || '_'] ??= d.msg;
    }
    return out;
  }
}

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

async function send(method: Method, path: string, body: unknown, headers: Record<string, string>): Promise<Response> {
  const h: Record<string, string> = { ...headers };
  const token = getAccessToken();
  if (token) h.authorization = `Bearer ${token}`;
  if (body !== undefined) h['content-type'] = 'application/json';
  return fetch(path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** Sends a request; a 401 is retried once after a refresh, then sends the person to log in. */
export async function api<T>(method: Method, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  let res = await send(method, path, body, headers);
  if (res.status === 401 && !path.startsWith('/console/auth/')) {
    if (await refresh()) res = await send(method, path, body, headers);
    if (res.status === 401) {
      clearTokens();
      const here = currentPath();
      if (!here.startsWith('/login')) navigate(`/login?next=${encodeURIComponent(here)}`, true);
      throw new ApiError(401, 'your session ended: log in again');
    }
  }
  const text = await res.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!res.ok) {
    const detail = (data as { detail?: unknown } | null)?.detail;
    throw new ApiError(res.status, typeof detail === 'string' || Array.isArray(detail) ? (detail as string | FieldIssue[]) : `request failed (${res.status})`);
  }
  return data as T;
}

/** Console-door path of a project resource. */
export const projectPath = (projectId: string, rest: string): string => `/console/v2/projects/${encodeURIComponent(projectId)}${rest}`;

export function qs(params: Record<string, string | number | boolean | null | undefined>): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') p.set(k, String(v));
  const s = p.toString();
  return s ? `?${s}` : '';
}
