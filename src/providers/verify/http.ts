import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, fetch } from 'undici';
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
  /** Display name used in status_detail ("OpenAI"). */
  name: string;
  defaultBaseUrl: string;
  /** Path of the cheap call, starting with /v1/. */
  path: string;
  headers: (apiKey: string) => Record<string, string>;
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
const MAX_BODY_BYTES = 1024 * 1024;

// When private addresses are not allowed, the check happens at connect time on the very
// addresses the socket will use, so DNS cannot be changed between a check and the call.
type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) {
      const refused = Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' });
      return callback(refused, []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

let publicAgent: Agent | undefined;
const agent = () => (publicAgent ??= new Agent({ connect: { lookup: publicOnlyLookup as never } }));

/** base_url + path; a base_url that already ends in /v1 is not given a second /v1. */
export function joinUrl(base: string, path: string): string {
  const trimmed = base.replace(/\/+$/, '');
  return trimmed.endsWith('/v1') && path.startsWith('/v1/') ? trimmed + path.slice(3) : trimmed + path;
}

const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

function networkDetail(err: unknown, host: string, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.cause?.name === 'TimeoutError') {
    return `${host} did not answer within ${Math.round(timeoutMs / 100) / 10} s`;
  }
  const code = e?.cause?.code ?? e?.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return `could not connect to ${host}: connection refused`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `could not resolve ${host}`;
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return `${host} closed the connection`;
    case 'EPRIVATE':
      return `${host} resolves to a private address, which is not allowed`;
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return `${host} did not answer within ${Math.round(timeoutMs / 100) / 10} s`;
  }
  if (/CERT|TLS|SSL/i.test(code)) return `TLS error talking to ${host} (${code})`;
  return `network error talking to ${host}${SAFE_CODE.test(code) ? ` (${code})` : ''}`;
}

async function readCapped(res: { body: ReadableStream<Uint8Array> | null }): Promise<string> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function scrub(detail: string, apiKey: string): string {
  return apiKey.length >= 4 ? detail.split(apiKey).join('[redacted]') : detail;
}

/** Makes the provider's cheap call and turns the answer into verified/invalid with a detail. */
export async function probe(spec: ProbeSpec, target: VerifyTarget): Promise<VerifyResult> {
  const timeoutMs = target.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const url = new URL(joinUrl(target.baseUrl ?? spec.defaultBaseUrl, spec.path));
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
        headers: { accept: 'application/json', 'user-agent': 'voice-agent-service/1', ...spec.headers(target.apiKey) },
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        ...(target.allowPrivate ? {} : { dispatcher: agent() }),
      });
      text = await readCapped(res as never);
    } catch (err) {
      return { status: 'invalid', detail: networkDetail(err, host, timeoutMs) };
    }
    const body = parseJson(text);
    const rawCode = body === undefined ? undefined : spec.errorCode(body);
    const code = typeof rawCode === 'string' && SAFE_CODE.test(rawCode) ? `, ${rawCode}` : '';
    if (res.status >= 200 && res.status < 300) {
      if (body !== undefined && spec.looksRight(body)) return { status: 'verified', detail: null };
      return { status: 'invalid', detail: `${host} answered HTTP ${res.status} but not with ${spec.name}'s ${spec.expected}; check base_url` };
    }
    if (res.status === 401 || res.status === 403) {
      const accepted = spec.acceptRefusal?.(res.status, body) ?? null;
      if (accepted) return { status: 'verified', detail: accepted };
      return { status: 'invalid', detail: `${spec.name} rejected the API key (HTTP ${res.status}${code})` };
    }
    if (res.status >= 300 && res.status < 400) {
      return { status: 'invalid', detail: `${host} answered with a redirect (HTTP ${res.status}); check base_url` };
    }
    if (res.status === 404) return { status: 'invalid', detail: `${host} has no ${spec.path} (HTTP 404); check base_url` };
    return { status: 'invalid', detail: `${spec.name} answered HTTP ${res.status}${code}; try again later` };
  })();
  return result.detail ? { ...result, detail: scrub(result.detail, target.apiKey) } : result;
}

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
