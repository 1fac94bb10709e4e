import { Emitter } from './emitter.js';

// The media socket (spec §4.7, contract §9): binary PCM16LE both ways, JSON control frames from
// the server, `{type:"stop"}` to hang up, and close codes that say why a call was refused.

export type ControlFrame =
  | { type: 'transcript'; role: 'user' | 'assistant'; text: string }
  | { type: 'interrupted'; heard?: string }
  | { type: 'turn_complete' }
  | { type: 'error'; message: string }
  | { type: 'session_ended'; reason: string };

/** Close codes of spec §4.7 and the WebSocket codes the server uses (contract §9). */
export const CLOSE_CODES = {
  1000: 'normal',
  1008: 'message_rate_exceeded',
  1009: 'message_too_large',
  1013: 'service_restarting',
  4401: 'bad_token',
  4404: 'unknown_session',
  4408: 'configuration_expired',
  4409: 'not_connectable',
  4429: 'concurrency_limit',
  4453: 'provider_pipeline_unavailable',
} as const;

export type CloseName = (typeof CLOSE_CODES)[keyof typeof CLOSE_CODES] | 'abnormal';

/** The socket closed for a reason other than a normal end of call. */
export class MediaCloseError extends Error {
  constructor(readonly code: number, readonly reason: string, readonly closeName: CloseName) {
    super(`media socket closed ${code} (${closeName})${reason ? `: ${reason}` : ''}`);
    this.name = 'MediaCloseError';
  }
}

export interface MediaClose {
  code: number;
  reason: string;
  name: CloseName;
  /** Null for a normal close (1000). */
  error: MediaCloseError | null;
}

export type MediaEvents = {
  audio: Int16Array;
  transcript: Extract<ControlFrame, { type: 'transcript' }>;
  interrupted: Extract<ControlFrame, { type: 'interrupted' }>;
  turn_complete: Extract<ControlFrame, { type: 'turn_complete' }>;
  error: Extract<ControlFrame, { type: 'error' }>;
  session_ended: Extract<ControlFrame, { type: 'session_ended' }>;
  /** Every control frame, in order. */
  frame: ControlFrame;
  close: MediaClose;
};

/** What MediaConnection needs of a WebSocket: the platform's or the `ws` package's. */
export interface SocketLike {
  binaryType: string;
  readyState: number;
  send(data: string | ArrayBufferView | ArrayBuffer): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, fn: (ev: { data?: unknown; code?: number; reason?: string }) => void): void;
}

export interface MediaOptions {
  /** A WebSocket constructor (default: the platform's, else the `ws` package). */
  WebSocket?: new (url: string) => SocketLike;
}

/** Largest audio message the server takes (contract §9). */
export const MAX_AUDIO_BYTES = 64 * 1024;

export class MediaConnection extends Emitter<MediaEvents> {
  /** Resolves when the socket closes (normal or not). */
  readonly closed: Promise<MediaClose>;

  constructor(private readonly ws: SocketLike) {
    super();
    ws.binaryType = 'arraybuffer';
    this.closed = new Promise((resolve) =>
      ws.addEventListener('close', (ev) => {
        const code = ev.code ?? 1006;
        const reason = ev.reason ?? '';
        const name = (CLOSE_CODES as Record<number, CloseName>)[code] ?? 'abnormal';
        const close: MediaClose = { code, reason, name, error: code === 1000 ? null : new MediaCloseError(code, reason, name) };
        this.emit('close', close);
        resolve(close);
      }),
    );
    ws.addEventListener('message', (ev) => {
      const data = ev.data;
      if (typeof data === 'string') {
        const frame = JSON.parse(data) as ControlFrame;
        this.emit('frame', frame);
        this.emit(frame.type, frame);
      } else if (data instanceof ArrayBuffer) {
        this.emit('audio', new Int16Array(data.slice(0, data.byteLength & ~1)));
      } else if (ArrayBuffer.isView(data)) {
        const copy = new Uint8Array(data.byteLength & ~1);
        copy.set(new Uint8Array(data.buffer, data.byteOffset, copy.byteLength));
        this.emit('audio', new Int16Array(copy.buffer));
      }
    });
  }

  /**
   * Resolves when the call ends normally (1000); rejects with MediaCloseError otherwise. The server
   * accepts a socket before checking its token, so a refusal (4401, 4429, ...) arrives here.
   */
  done(): Promise<void> {
    return this.closed.then((c) => {
      if (c.error) throw c.error;
    });
  }

  get open(): boolean {
    return this.ws.readyState === 1;
  }

  /** Sends PCM16LE mono at the session's `sample_rate_in`, split into messages the server takes. */
  sendAudio(pcm: Int16Array): void {
    const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    for (let at = 0; at < bytes.length; at += MAX_AUDIO_BYTES) this.ws.send(bytes.slice(at, at + MAX_AUDIO_BYTES));
  }

  /** Hangs up: the server ends the call, sends `session_ended` and closes with 1000. */
  hangUp(): void {
    if (this.open) this.ws.send(JSON.stringify({ type: 'stop' }));
  }

  /** Closes the socket without a stop (the server ends the call as a caller hang-up). */
  close(): void {
    this.ws.close(1000);
  }
}

async function platformWebSocket(): Promise<new (url: string) => SocketLike> {
  const global = (globalThis as { WebSocket?: new (url: string) => SocketLike }).WebSocket;
  if (global) return global;
  const name = 'ws';
  const mod = (await import(name)) as { default: new (url: string) => SocketLike };
  return mod.default;
}

/**
 * Connects a session's single-use `ws_url`. Rejects when the socket closes before it opens;
 * refusals after the upgrade (bad token, concurrency) come through `done()` and the `close` event.
 */
export async function connectMedia(wsUrl: string, opts: MediaOptions = {}): Promise<MediaConnection> {
  const Ctor = opts.WebSocket ?? (await platformWebSocket());
  const ws = new Ctor(wsUrl);
  const conn = new MediaConnection(ws);
  await new Promise<void>((resolve, reject) => {
    ws.addEventListener('open', () => resolve());
    void conn.closed.then((c) => reject(c.error ?? new MediaCloseError(c.code, c.reason, c.name)));
  });
  return conn;
}
