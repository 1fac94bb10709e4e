import WebSocket from 'ws';
import type { Harness } from '../helpers/harness.js';

/** A media-socket client that records everything it receives. */
export interface MediaClient {
  ws: WebSocket;
  binary: { at: number; data: Buffer }[];
  text: Record<string, unknown>[];
  closed: Promise<{ code: number; reason: string }>;
  opened: Promise<void>;
}

export function connect(url: string): MediaClient {
  const ws = new WebSocket(url);
  const client: MediaClient = {
    ws,
    binary: [],
    text: [],
    opened: new Promise((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    }),
    closed: new Promise((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
  };
  ws.on('error', () => {});
  ws.on('message', (data, isBinary) => {
    if (isBinary) client.binary.push({ at: performance.now(), data: data as Buffer });
    else client.text.push(JSON.parse(data.toString()));
  });
  return client;
}

/** The ws_url with the real media port (the harness config says port 0). */
export function mediaUrl(wsUrl: string, port: number): string {
  const u = new URL(wsUrl);
  u.port = String(port);
  return u.toString();
}

export async function admit(h: Harness, headers: Record<string, string>, body: Record<string, unknown>) {
  const res = await h.app.inject({ method: 'POST', url: '/v2/voice/sessions', headers, payload: body });
  if (res.statusCode !== 201) throw new Error(`admission failed ${res.statusCode}: ${res.body}`);
  return res.json() as { session: { id: string }; ws_url: string };
}

/** PCM16LE sine, `ms` long at `rateHz`. */
export function sine(rateHz: number, ms: number, freqHz = 440, phase0 = 0): Buffer {
  const n = Math.round((rateHz * ms) / 1000);
  const buf = Buffer.alloc(n * 2);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * freqHz * (i + phase0)) / rateHz)), i * 2);
  return buf;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function until(check: () => boolean | Promise<boolean>, timeoutMs = 3000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(10);
  }
}
