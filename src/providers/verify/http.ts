import { isIP } from 'node:net';
import { fetch } from 'undici';
import { networkDetail, parseJson, publicOnlyDispatcher, readCapped } from '../../shared/net/outbound-http.js';
import type { ProviderHost } from '../hosts.js';
import { isPrivateAddress } from '../url.js';

// One live, cheap, read-only call to a provider (listing models, projects or the user) that
// tells whether the key works. The key travels only in the request header: it never appears
// in a status_detail, a log line or an error.

export type VerifyStatus = 'verified' | 'invalid';

export interface VerifyResult {
  status: VerifyStatus;
  detail: string | null;
}

export interface VerifyTarget {
  apiKey: string;
  /** The account's base_url, or null for the provider's own host. */
  baseUrl: string | null;
  allowPrivate: boolean;
  timeoutMs?: number;
}

export interface ProbeSpec {
  /** The provider: its name in status_detail ("OpenAI"), default base URL and key header. */
  host: ProviderHost;
  /** Path of the cheap call, starting with /v1/. */
  path: string;
  /** Headers the call needs besides the key's (sent after it). */
  headers?: Record<string, string>;
  /** What a 2xx body must look like, so a wrong base_url that answers 200 is not "verified". */
  looksRight: (body: unknown) => boolean;
  /** What the 2xx body should have been, for the detail ("a models list"). */
  expected: string;
  /** A short machine code from the provider's error body (never its free text, which may echo the key). */
  errorCode: (body: unknown) => unknown;
  /**
   * For a refusal that still proves the key is genuine (it authenticated but may not read this
   * endpoint): the status_detail to record with `verified`; null when the refusal stands.
   */
  acceptRefusal?: (status: number, body: unknown) => string | null;
}

export const DEFAULT_TIMEOUT_MS = 8000;

/** base_url + path; a base_url that already ends in /v1 is not given a second /v1. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') && path.startsWith('/v1/') ? trimmed + path.slice(3) : trimmed + path;
}

const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

function scrub(detail: string, apiKey: string): string {
  return apiKey.length >= 4 ? detail.split(apiKey).join('[redacted]') : detail;
}

/** Makes the provider's cheap call and turns the answer into verified/invalid with a detail. */
export async function probe(spec: ProbeSpec, target: VerifyTarget): Promise<VerifyResult> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const url = new URL(joinUrl(target.baseUrl ?? spec.host.defaultBaseUrl, spec.path));
  const host = url.host;
  const bareHost = url.hostname.replace(/^\[|\]$/g, '');
  if (!target.allowPrivate && isIP(bareHost) && isPrivateAddress(bareHost)) {
    return { status: 'invalid', detail: `${host} is a private address, which is not allowed` };
  }
  const result = await (async (): Promise<VerifyResult> => {
    let res;
    let text: string;
    try {
      res = await fetch(url, {
        method: 'GET',
        headers: { accept: 'application/json', 'user-agent': 'voice-agent-service/1', ...spec.host.keyHeader(target.apiKey), ...spec.headers },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        ...(target.allowPrivate ? {} : { dispatcher: publicOnlyDispatcher() }),
      });
      text = await readCapped(res.body as ReadableStream<Uint8Array> | null);
    } catch (err) {
      return { status: 'invalid', detail: networkDetail(err, host, timeoutMs).detail };
    }
    const body = parseJson(text);
    const rawCode = body === undefined ? undefined : spec.errorCode(body);
    const code = typeof rawCode === 'string' && SAFE_CODE.test(rawCode) ? `, ${rawCode}` : '';
    if (res.status >= 200 && res.status < 300) {
      if (body !== undefined && spec.looksRight(body)) return { status: 'verified', detail: null };
      return { status: 'invalid', detail: `${host} answered HTTP ${res.status} but not with ${spec.host.name}'s ${spec.expected}; check base_url` };
    }
    if (res.status === 401 || res.status === 403) {
      const accepted = spec.acceptRefusal?.(res.status, body) ?? null;
      if (accepted) return { status: 'verified', detail: accepted };
      return { status: 'invalid', detail: `${spec.host.name} rejected the API key (HTTP ${res.status}${code})` };
    }
    if (res.status >= 300 && res.status < 400) {
      return { status: 'invalid', detail: `${host} answered with a redirect (HTTP ${res.status}); check base_url` };
    }
    if (res.status === 404) return { status: 'invalid', detail: `${host} has no ${spec.path} (HTTP 404); check base_url` };
    return { status: 'invalid', detail: `${spec.host.name} answered HTTP ${res.status}${code}; try again later` };
  })();
  return result.detail ? { ...result, detail: scrub(result.detail, target.apiKey) } : result;
}

export { isObject } from '../json.js';
