import type uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import { activateSession } from '../sessions/lifecycle.js';
import type { CallStarter } from './call-registry.js';
import { UWS_MAX_PAYLOAD_BYTES } from '../contract/control-frames.js';
import { BrowserTransport, closeOverRate } from './browser-transport.js';
import type { MessageRateBucket, MessageRatePolicy } from './message-rate.js';
import { browserOriginRefusal } from './browser-origin.js';
import type { VoiceSession } from './voice-session.js';

// One browser media socket (`/v2/voice/sessions/:id/stream?token=`), from open to close.
//
// The upgrade is accepted at once and the session is activated after `open`: uWS 20.30 can
// close a socket upgraded asynchronously inside `res.cork` right after its `open`, with no
// close frame (uWebSockets#1928), which dropped calls as hang-ups the moment they connected.
// A refusal therefore arrives as a close code after the socket opened, as it always did.
//
//   activating ──ok──▶ running ──stop / close──▶ closed
//        ├──refused──▶ closed with the spec's close code (4401, 4403, 4409, …)
//        └──client left──▶ closed (a started call is abandoned: a hang-up)
//
// What the client sends while the session activates (a client may stream as soon as the
// socket opens) waits and is handed to the call once it runs, so every message is answered as
// on a running call. Its audio reaches the conversation engine (a caller's first words); a
// pipeline that plays audio back in real time (echo) plays only what its pacing lead let out
// (60 ms) and drops the rest, or the backlog would stay as delay for the whole call (an activation under a burst of connects takes
// hundreds of ms). It counts against the message rate from the open; past
// EARLY_MAX_BYTES (one largest message: far more than a client streams in an activation) the
// socket is closed 1008.

const EARLY_MAX_BYTES = UWS_MAX_PAYLOAD_BYTES;
const EARLY_OVERFLOW = { code: 1008, reason: 'too much sent before the call started' } as const;

/** What uWS keeps per socket: the upgrade's request and the stream (cleared on close). */
export interface BrowserSocketData {
  request: BrowserRequest;
  stream: BrowserStream | null;
}

export interface BrowserRequest {
  sessionId: string;
  token: string;
  origin: string;
}

interface Log {
  warn: (o: object, m: string) => void;
  error: (o: object, m: string) => void;
}

type State = 'activating' | 'running' | 'closed';

export class BrowserStream {
  private state: State = 'activating';
  private session: VoiceSession | null = null;
  private transport: BrowserTransport | null = null;
  private early: { message: ArrayBuffer; isBinary: boolean }[] = [];
  private earlyBytes = 0;
  private readonly bucket: MessageRateBucket;

  constructor(
    private readonly ws: uWS.WebSocket<BrowserSocketData>,
    private readonly request: BrowserRequest,
    private readonly deps: { ctx: AppContext; calls: CallStarter; nodeId: string; messageRate: MessageRatePolicy; log: Log },
  ) {
    this.bucket = deps.messageRate.bucket();
  }

  /** The socket opened: authorise and start the call. Never rejects. */
  async open(): Promise<void> {
    const { ctx, calls, nodeId, log } = this.deps;
    const { sessionId, token, origin } = this.request;
    try {
      // A browser session's socket must come from an origin of its publishable key (4403).
      const refusal = await browserOriginRefusal(ctx, sessionId, token, origin);
      if (refusal) return this.refuse(refusal.code, refusal.reason);
      if (this.left()) return; // before activation: the token stays unused
      const started = await calls.start(() => activateSession(ctx, sessionId, token, nodeId));
      if (!started.ok) return this.refuse(started.code, started.reason);
      if (this.left()) return calls.abandon(started.session);
      this.run(started.session);
    } catch (err) {
      log.error({ err }, 'media activation failed');
      this.refuse(1011, 'internal error');
    }
  }

  /** The client closed the socket (read through a call: `open` awaits in between). */
  private left(): boolean {
    return this.state === 'closed';
  }

  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.state === 'running') return this.transport!.onMessage(message, isBinary);
    if (this.state !== 'activating') return;
    if (!this.bucket.take()) return this.closeEarly(() => closeOverRate(this.ws, this.deps.messageRate, this.deps.log, this.request.sessionId));
    if (this.earlyBytes + message.byteLength > EARLY_MAX_BYTES) {
      this.deps.log.warn({ session_id: this.request.sessionId, bytes: this.earlyBytes + message.byteLength }, 'media socket sent too much before its call started: closed with 1008');
      return this.closeEarly(() => this.ws.end(EARLY_OVERFLOW.code, EARLY_OVERFLOW.reason));
    }
    // uWS reuses the message's memory once this callback returns: keep a copy.
    this.early.push({ message: message.slice(0), isBinary });
    this.earlyBytes += message.byteLength;
  }

  onClose(): void {
    const wasRunning = this.state === 'running';
    this.state = 'closed';
    this.early = [];
    const session = this.session;
    this.session = null;
    this.transport = null;
    if (wasRunning) session?.onClose();
  }

  private run(session: VoiceSession): void {
    const { calls, log } = this.deps;
    const row = session.row;
    this.ws.cork(() => {
      this.session = session;
      this.transport = new BrowserTransport(this.ws, session, row.encoding, row.sample_rate_in, row.sample_rate_out, this.bucket, log);
      this.state = 'running';
      calls.attach(session, this.transport);
      const early = this.early;
      this.early = [];
      // Handing one over can end the call (a `stop`, the rate limit): the rest are dropped.
      for (const m of early) if (this.state === 'running') this.transport?.replay(m.message, m.isBinary);
      if (early.length > 0 && this.state === 'running') session.backlogPushed();
    });
  }

  /** Closes the socket before its call runs (uWS calls onClose inside `end`). */
  private closeEarly(end: () => void): void {
    this.early = [];
    end();
  }

  private refuse(code: number, reason: string): void {
    if (this.state !== 'activating') return;
    this.ws.cork(() => this.ws.end(code, reason));
  }
}
