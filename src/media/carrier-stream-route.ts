import uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import type { CallStarter } from './call-registry.js';
import type { VoiceSession } from './voice-session.js';
import { activateCarrierStream, type StreamStart } from '../telephony/activation.js';
import type { CarrierSocketData, CarrierTransport } from './carrier-transport.js';
import { MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON, MessageRatePolicy, type MessageRateBucket } from './message-rate.js';

// The socket lifecycle every carrier's media stream shares (Twilio, Telnyx). The carrier cannot
// put our token in the URL, so the upgrade is accepted as is and the call is authorised by the
// `start` message, which carries the session id and the single-use token. Until then nothing
// else is accepted.
//
//   awaiting start ──start──▶ activating ──ok──▶ running ──stop / close──▶ closed
//         │                       └──refused──▶ closed with the spec's close code
//         └──no start within START_TIMEOUT_MS──▶ closed (4401)
//
// Every message, in every state, counts against the socket's message rate limit
// (MEDIA_MAX_MESSAGES_PER_SECOND, MEDIA_MESSAGE_BURST); over it, the socket is logged and closed
// with 1008. A running call ends as a hang-up. Each carrier gives only its protocol
// (CarrierStreamProtocol).

export const START_TIMEOUT_MS = 10_000;
const STOP_CODE = 1000;

interface Log {
  info: (o: object, m: string) => void;
  warn: (o: object, m: string) => void;
  debug: (o: object, m: string) => void;
}

type State = 'awaiting_start' | 'activating' | 'running' | 'closed';

/** The inbound messages the lifecycle acts on; a carrier's parser may yield any of them. */
export type CarrierInbound<Start extends { event: 'start' }> =
  | Start
  | { event: 'media'; track: string; audio: Uint8Array }
  | { event: 'dtmf'; digit: string }
  | { event: 'stop' }
  | { event: 'error'; code: string | null; title: string | null }
  | { event: 'mark' } // our turn_complete mark came back: that audio has played
  | { event: 'connected' };

/** What differs between carriers' media streams. */
export interface CarrierStreamProtocol<Start extends { event: 'start' }, Transport extends CarrierTransport> {
  /** The carrier's name, in logs ('twilio' stream …). */
  carrier: 'twilio' | 'telnyx';
  path: string;
  maxMessageBytes: number;
  parse(raw: Buffer): { ok: true; message: CarrierInbound<Start> } | { ok: false; error: { reason: string; field: string | null } };
  /** Whether a `media` message's track is the caller's audio (others are counted and dropped). */
  isCallerTrack(track: string): boolean;
  /** The call a `start` message claims, or why it is refused (bad media format, no claim). */
  claim(start: Start): { ok: true; start: StreamStart } | { ok: false; code: number; reason: string };
  openTransport(ws: uWS.WebSocket<CarrierSocketData>, start: Start): Transport;
  /** The stream's id for logs, under the carrier's own field name. */
  streamLogFields(transport: Transport | null): object;
}

/** One carrier stream socket: the protocol state in front of its transport and call. */
class CarrierStream<Start extends { event: 'start' }, Transport extends CarrierTransport> {
  private state: State = 'awaiting_start';
  private transport: Transport | null = null;
  private session: VoiceSession | null = null;
  private readonly startTimer: NodeJS.Timeout;
  private readonly bucket: MessageRateBucket;
  /** The session id the `start` message names (not yet proven: logs only). */
  private claimedSessionId: string | null = null;
  protocolErrors = 0;

  constructor(
    private readonly protocol: CarrierStreamProtocol<Start, Transport>,
    private readonly ws: uWS.WebSocket<CarrierSocketData>,
    private readonly ctx: AppContext,
    private readonly calls: CallStarter,
    private readonly nodeId: string,
    private readonly log: Log,
    private readonly rate: MessageRatePolicy,
  ) {
    this.bucket = rate.bucket();
    this.startTimer = setTimeout(() => this.refuse(4401, 'no start message'), START_TIMEOUT_MS);
    this.startTimer.unref();
  }

  onMessage(message: ArrayBuffer, isBinary: boolean): void {
    if (this.state === 'closed') return;
    if (!this.bucket.take()) return this.overRate();
    if (isBinary) return void this.protocolErrors++;
    const parsed = this.protocol.parse(Buffer.from(message));
    if (!parsed.ok) {
      this.protocolErrors++;
      this.log.debug({ reason: parsed.error.reason, field: parsed.error.field }, `${this.protocol.carrier} stream: message ignored`);
      return;
    }
    const m = parsed.message;
    switch (m.event) {
      case 'start':
        if (this.state === 'awaiting_start') this.start(m);
        return;
      case 'media':
        if (this.state !== 'running') return; // before the call runs: a few ms of ringback at most
        if (!this.protocol.isCallerTrack(m.track)) return void this.transport!.droppedMessages++;
        return this.transport!.onCallerAudio(m.audio);
      case 'dtmf':
        if (this.state === 'running') this.session!.onDtmf(m.digit);
        return;
      case 'stop':
        // The call is over. Before it runs, just leave: an activated call is then abandoned.
        if (this.state === 'running') return this.session!.onStop();
        return this.refuse(STOP_CODE, 'stream stopped');
      case 'error':
        this.log.warn({ session_id: this.session?.id ?? this.claimedSessionId, code: m.code, title: m.title }, `${this.protocol.carrier} stream error frame`);
        return;
      case 'mark':
      case 'connected':
        return;
    }
  }

  private start(m: Start): void {
    clearTimeout(this.startTimer);
    const claim = this.protocol.claim(m);
    if (!claim.ok) return this.refuse(claim.code, claim.reason);
    this.state = 'activating';
    this.transport = this.protocol.openTransport(this.ws, m);
    const start = claim.start;
    this.claimedSessionId = start.sessionId.slice(0, 36);
    const carrier = this.protocol.carrier;
    this.calls.start(() => activateCarrierStream(this.ctx, start, this.nodeId)).then(
      (started) => {
        if (!started.ok) {
          this.log.info({ session_id: start.sessionId.slice(0, 36), code: started.code, reason: started.reason }, `${carrier} stream refused`);
          return this.refuse(started.code, started.reason);
        }
        // The carrier hung up while the call was being activated: it ends at once, as a hang-up.
        if (this.state === 'closed') return this.calls.abandon(started.session);
        this.state = 'running';
        this.session = started.session;
        this.transport!.bind(started.session);
        this.calls.attach(started.session, this.transport!);
      },
      (err: unknown) => {
        this.log.warn({ err }, `${carrier} stream activation failed`);
        this.refuse(1011, 'internal error');
      },
    );
  }

  /**
   * Over the message rate: logged and closed 1008. A running call's close comes back through
   * onClose (uWS runs it inside `end`) and ends the call as a hang-up; one still activating is
   * abandoned when its activation returns.
   */
  private overRate(): void {
    this.log.warn(
      {
        session_id: this.session?.id ?? this.claimedSessionId,
        ...this.protocol.streamLogFields(this.transport),
        state: this.state,
        max_per_second: this.rate.perSecond,
        burst: this.rate.burst,
      },
      `${this.protocol.carrier} stream over its message rate limit: closed with 1008`,
    );
    if (this.state === 'running') this.transport!.close(MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON);
    else this.refuse(MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON);
  }

  private refuse(code: number, reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.startTimer);
    this.transport?.markClosed();
    this.ws.end(code, reason);
  }

  /** uWS close callback: the socket is gone. */
  onClose(): void {
    const wasRunning = this.state === 'running';
    this.state = 'closed';
    clearTimeout(this.startTimer);
    this.transport?.markClosed();
    if (wasRunning) this.session?.onClose();
    this.session = null;
  }
}

/**
 * A carrier's stream route, for `startMediaServer(ctx, { routes: [...] })`. `nodeId` must be the
 * media server's: it owns the leases of the calls activated here.
 */
export function carrierStreamRoute<Start extends { event: 'start' }, Transport extends CarrierTransport>(
  ctx: AppContext,
  nodeId: string,
  protocol: CarrierStreamProtocol<Start, Transport>,
): (app: uWS.TemplatedApp, calls: CallStarter) => void {
  const carrier = protocol.carrier;
  const log = ctx.log.child({ role: 'media', transport: carrier });
  const rate = new MessageRatePolicy(ctx.config.MEDIA_MAX_MESSAGES_PER_SECOND, ctx.config.MEDIA_MESSAGE_BURST);
  return (app, calls) => {
    app.ws<CarrierSocketData>(protocol.path, {
      // Carriers' messages are small JSON (≈ 250 bytes per 20 ms); uWS cuts anything far larger.
      maxPayloadLength: 2 * protocol.maxMessageBytes,
      maxBackpressure: 256 * 1024,
      idleTimeout: 60,
      sendPingsAutomatically: true,
      compression: uWS.DISABLED,
      upgrade: (res, req, context) => {
        res.upgrade<CarrierSocketData>(
          { stream: null },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      open: (ws) => {
        ws.getUserData().stream = new CarrierStream(protocol, ws, ctx, calls, nodeId, log, rate);
      },
      message: (ws, message, isBinary) => {
        try {
          ws.getUserData().stream?.onMessage(message, isBinary);
        } catch (err) {
          // Socket callbacks never throw (uWS would tear the process's event loop state).
          log.warn({ err }, `${carrier} stream message failed`);
        }
      },
      close: (ws) => {
        const data = ws.getUserData();
        const stream = data.stream;
        data.stream = null;
        try {
          stream?.onClose();
        } catch (err) {
          log.warn({ err }, `${carrier} stream close failed`);
        }
      },
    });
  };
}
