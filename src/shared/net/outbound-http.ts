import { Agent } from 'undici';
import { safeLookup } from './address-policy.js';

// Shared pieces of outbound HTTP to customer-chosen hosts: a dispatcher that connects only to
// checked public addresses, a capped body reader, and a short description of a failed
// connection that never echoes what the far end sent.

let publicAgent: Agent | undefined;
/** An undici dispatcher whose connections go only to addresses `safeLookup` checked. */
export const publicOnlyDispatcher = () => (publicAgent ??= new Agent({ connect: { lookup: safeLookup } }));

const SAFE_CODE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** A short sentence for a failed connection to `host`, and whether it was a timeout. */
export function networkDetail(err: unknown, host: string, timeoutMs: number): { detail: string; timedOut: boolean } {
  const e = err as { name?: string; code?: string; cause?: { code?: string; name?: string } };
  const seconds = Math.round(timeoutMs / 100) / 10;
  const timeout = { detail: `${host} did not answer within ${seconds} s`, timedOut: true };
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError' || e?.cause?.name === 'TimeoutError') return timeout;
  const code = e?.cause?.code ?? e?.code ?? '';
  const said = (detail: string) => ({ detail, timedOut: false });
  switch (code) {
    case 'ECONNREFUSED':
      return said(`could not connect to ${host}: connection refused`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return said(`could not resolve ${host}`);
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return said(`${host} closed the connection`);
    case 'VC_ERR_DESTINATION_BLOCKED':
      return said(`${host} resolves to a private address, which is not allowed`);
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'ETIMEDOUT':
      return timeout;
  }
  if (/CERT|TLS|SSL/i.test(code)) return said(`TLS error talking to ${host} (${code})`);
  return said(`network error talking to ${host}${SAFE_CODE.test(code) ? ` (${code})` : ''}`);
}

/** Reads a response body as text, stopping (and cancelling the stream) past `maxBytes`. */
export async function readCapped(body: ReadableStream<Uint8Array> | null, maxBytes = 1024 * 1024): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
