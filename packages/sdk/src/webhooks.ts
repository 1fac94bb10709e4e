import type { VoiceSession } from './types.js';

// Verifying a delivery (contract §7, Standard Webhooks): the signature is
// base64(HMAC-SHA256(key, "{webhook-id}.{webhook-timestamp}.{raw body}")) with key the base64
// part of the `whsec_` secret; the timestamp must be within five minutes. Verify the raw
// bytes before parsing JSON. The HMAC comparison is Web Crypto's `verify` (constant-time).

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

export interface TranscriptLine {
  role: 'user' | 'assistant' | 'tool';
  text: string;
  start_ms: number;
  end_ms: number;
}

interface Envelope<T extends string, D> {
  type: T;
  /** ISO 8601. */
  timestamp: string;
  data: D;
}

export type CallEndedData = { session: VoiceSession; transcript?: TranscriptLine[]; recording_url?: string };

export type WebhookEvent =
  | Envelope<'call.completed', CallEndedData>
  | Envelope<'call.failed', CallEndedData>
  | Envelope<'call.transferred', { session: VoiceSession } & Record<string, unknown>>
  | Envelope<'campaign.completed', Record<string, unknown>>
  | Envelope<'webhook.ping', { endpoint_id: string }>
  | Envelope<'tool.call', { session_id: string; tool: string; arguments: Record<string, unknown> }>;

export class WebhookVerificationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

function header(headers: WebhookHeaders, name: string): string {
  let v: string | string[] | null | undefined;
  if (typeof (headers as Headers).get === 'function') v = (headers as Headers).get(name);
  else {
    const rec = headers as Record<string, string | string[] | undefined>;
    const key = Object.keys(rec).find((k) => k.toLowerCase() === name);
    v = key === undefined ? undefined : rec[key];
  }
  const value = Array.isArray(v) ? v[0] : v;
  if (!value) throw new WebhookVerificationError(`missing ${name} header`);
  return value;
}

function base64Bytes(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const bin = atob(text);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

export interface VerifyOptions {
  /** Seconds of clock difference accepted (default 300). */
  toleranceSeconds?: number;
  /** The current time in ms (tests). */
  now?: number;
}

/** Checks the delivery's signature and timestamp and returns the parsed event; throws WebhookVerificationError. */
export async function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string, opts: VerifyOptions = {}): Promise<WebhookEvent> {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('malformed webhook-timestamp');
  const skew = Math.abs((opts.now ?? Date.now()) / 1000 - Number(timestamp));
  if (skew > (opts.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS)) throw new WebhookVerificationError('webhook-timestamp outside the tolerance window');

  const keyBytes = base64Bytes(secret.startsWith('whsec_') ? secret.slice(6) : secret);
  if (!keyBytes || keyBytes.length === 0) throw new WebhookVerificationError('malformed secret');
  const key = await globalThis.crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  const enc = new TextEncoder();
  const body = typeof rawBody === 'string' ? enc.encode(rawBody) : rawBody;
  const prefix = enc.encode(`${id}.${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix, 0);
  signed.set(body, prefix.length);

  let valid = false;
  for (const part of signatures.split(' ')) {
    const [version, sig] = part.split(',', 2);
    if (version !== 'v1' || !sig) continue;
    const bytes = base64Bytes(sig);
    if (bytes && (await globalThis.crypto.subtle.verify('HMAC', key, bytes, signed))) valid = true;
  }
  if (!valid) throw new WebhookVerificationError('no matching signature');
  try {
    return JSON.parse(new TextDecoder().decode(body)) as WebhookEvent;
  } catch {
    throw new WebhookVerificationError('body is not JSON');
  }
}
