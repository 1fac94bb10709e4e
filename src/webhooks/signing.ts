import { createHmac } from 'node:crypto';

// Standard Webhooks (https://www.standardwebhooks.com): any compliant library verifies these.

export const USER_AGENT = 'voice-agent-webhooks/1';

/** The HMAC key of a `whsec_` secret: the base64-decoded part after the prefix. */
export function signingKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** `v1,` + base64 HMAC-SHA256 over `{id}.{timestamp}.{body}`. */
export function sign(key: Buffer, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export function deliveryHeaders(key: Buffer, id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': sign(key, id, timestampSeconds, body),
  };
}

/** The delivered body; built from stored rows only, so every retry carries the same bytes. */
export function deliveryBody(type: string, occurredAt: Date, data: unknown): string {
  return JSON.stringify({ type, timestamp: occurredAt.toISOString(), data });
}
