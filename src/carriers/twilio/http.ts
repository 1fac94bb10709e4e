import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { Agent } from 'undici';
import { isPrivateAddress } from '../../providers/url.js';

// Connections to a carrier's base_url: when private addresses are not allowed, the check runs at
// connect time on the very addresses the socket uses, so DNS cannot change between check and call.

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

function publicOnlyLookup(hostname: string, options: { all?: boolean }, callback: LookupCallback): void {
  dnsLookup(hostname, { all: true }, (err, addresses) => {
    if (err) return callback(err, []);
    if (addresses.length === 0 || addresses.some((a) => isPrivateAddress(a.address))) {
      return callback(Object.assign(new Error(`${hostname} resolves to a private address`), { code: 'EPRIVATE' }), []);
    }
    if (options.all) return callback(null, addresses);
    callback(null, addresses[0].address, addresses[0].family);
  });
}

let publicAgent: Agent | undefined;
export const publicOnlyDispatcher = () => (publicAgent ??= new Agent({ connect: { lookup: publicOnlyLookup as never } }));

const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A short sentence for a failed connection; never echoes anything the far end sent. */
export function networkDetail(err: unknown, host: string, timeoutMs: number): { detail: string; timedOut: boolean } {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  const seconds = Math.round(timeoutMs / 100) / 10;
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError') return { detail: `${host} did not answer within ${seconds} s`, timedOut: true };
  const code = e?.cause?.code ?? e?.code ?? '';
  switch (code) {
    case 'ECONNREFUSED':
      return { detail: `could not connect to ${host}: connection refused`, timedOut: false };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { detail: `could not resolve ${host}`, timedOut: false };
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return { detail: `${host} closed the connection`, timedOut: false };
    case 'EPRIVATE':
      return { detail: `${host} resolves to a private address, which is not allowed`, timedOut: false };
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return { detail: `${host} did not answer within ${seconds} s`, timedOut: true };
  }
  if (/CERT|TLS|SSL/i.test(code)) return { detail: `TLS error talking to ${host} (${code})`, timedOut: false };
  return { detail: `network error talking to ${host}${SAFE_CODE.test(code) ? ` (${code})` : ''}`, timedOut: false };
}
