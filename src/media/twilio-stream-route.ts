import uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import type { CallStarter } from './call-registry.js';
import type { VoiceSession } from './voice-session.js';
import { activateCarrierStream } from '../telephony/activation.js';
import { TWILIO_STREAM_PATH } from '../telephony/urls.js';
import { TwilioTransport, type TwilioSocketData } from './twilio-transport.js';
import { MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON, MessageRatePolicy, type MessageRateBucket } from './message-rate.js';
import { MAX_MESSAGE_BYTES, MULAW_ENCODING, MULAW_SAMPLE_RATE_HZ, parseInboundMessage, type StartMessage } from '../carriers/twilio/media-stream-protocol.js';

// The media socket Twilio connects to for <Connect><Stream> (`/v2/carriers/twilio/stream`).
// Twilio cannot put our token in the URL (it drops query strings), so the upgrade is accepted
// as is and the call is authorised by the `start` message: its customParameters carry the
// session id and the single-use token from our TwiML. Until then nothing else is accepted.
//
//   awaiting start ──start──▶ activating ──ok──▶ running ──stop / close──▶ closed
//         │                       └──refused──▶ closed with the spec's close code
//         └──no start within START_TIMEOUT_MS──▶ closed (4401)
//
// Every message, in every state, counts against the socket's message rate limit
// (MEDIA_MAX_MESSAGES_PER_SECOND, MEDIA_MESSAGE_BURST). Twilio's protocol has no error message,
// so a stream over it is logged and closed with 1008; Twilio then ends <Connect><Stream>, and
// with no verb after it in our TwiML, the phone call. A running call ends as a hang-up.

export const START_TIMEOUT_MS = 10_000;
const STOP_CODE = 1000;

interface Log {
  info: (o: object, m: string) => void;
  warn: (o: object, m: string) => void;
  debug: (o: object, m: string) => void;
}

type State = 'awaiting_start' | 'activating' | 'running' | 'closed';

/** One Twilio stream socket: the protocol state in front of its transport and call. */
class TwilioStream {
  private state: State = 'awaiting_start';
  private transport: TwilioTransport | null = null;
  private session: VoiceSession | null = null;
  private readonly startTimer: NodeJS.Timeout;
  private readonly bucket: MessageRateBucket;
  /** The session id the `start` message names (not yet proven: logs only). */
  private claimedSessionId: string | null = null;
  protocolErrors = 0;

  constructor(
    private readonly ws: uWS.WebSocket<TwilioSocketData>,
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
    const parsed = parseInboundMessage(Buffer.from(message));
    if (!parsed.ok) {
      this.protocolErrors++;
      this.log.debug({ reason: parsed.error.reason, field: parsed.error.field }, 'twilio stream: message ignored');
      return;
    }
    const m = parsed.message;
    switch (m.event) {
      case 'start':
        if (this.state === 'awaiting_start') this.start(m);
        return;
      case 'media':
        if (this.state !== 'running') return; // before the call runs: a few ms of ringback at most
        if (m.track !== 'inbound') return void this.transport!.droppedMessages++;
        return this.transport!.onCallerAudio(m.audio);
      case 'dtmf':
        if (this.state === 'running') this.session!.onDtmf(m.digit);
        return;
      case 'stop':
        // The call is over. Before it runs, just leave: an activated call is then abandoned.
        if (this.state === 'running') return this.session!.onStop();
        return this.refuse(STOP_CODE, 'stream stopped');
      case 'mark': // our turn_complete mark came back: that audio has played
      case 'connected':
        return;
    }
  }

  private start(m: StartMessage): void {
    clearTimeout(this.startTimer);
    const f = m.mediaFormat;
    if (f.encoding !== MULAW_ENCODING || f.sampleRate !== MULAW_SAMPLE_RATE_HZ || f.channels !== 1) {
      return this.refuse(1003, 'media format must be audio/x-mulaw 8000 Hz mono');
    }
    this.state = 'activating';
    this.transport = new TwilioTransport(this.ws, m.streamSid);
    const start = {
      sessionId: m.customParameters.session_id ?? '',
      token: m.customParameters.token ?? '',
      accountSid: m.accountSid,
      callSid: m.callSid,
    };
    this.claimedSessionId = start.sessionId.slice(0, 36);
    this.calls.start(() => activateCarrierStream(this.ctx, start, this.nodeId)).then(
      (started) => {
        if (!started.ok) {
          this.log.info({ session_id: start.sessionId.slice(0, 36), code: started.code, reason: started.reason }, 'twilio stream refused');
          return this.refuse(started.code, started.reason);
        }
        // Twilio hung up while the call was being activated: it ends at once, as a hang-up.
        if (this.state === 'closed') return this.calls.abandon(started.session);
        this.state = 'running';
        this.session = started.session;
        this.transport!.bind(started.session);
        this.calls.attach(started.session, this.transport!);
      },
      (err: unknown) => {
        this.log.warn({ err }, 'twilio stream activation failed');
        this.refuse(1011, 'internal error');
      },
    );
  }

  /**
   * Over the message rate: logged (Twilio has no message to tell it) and closed 1008. A running
   * call's close comes back through onClose (uWS runs it inside `end`) and ends the call as a
   * hang-up; one still activating is abandoned when its activation returns.
   */
  private overRate(): void {
    this.log.warn(
      { session_id: this.session?.id ?? this.claimedSessionId, stream_sid: this.transport?.streamSid ?? null, state: this.state, max_per_second: this.rate.perSecond, burst: this.rate.burst },
      'twilio stream over its message rate limit: closed with 1008',
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
 * The route, for `startMediaServer(ctx, { routes: [twilioStreamRoute(ctx, nodeId)] })`. `nodeId`
 * must be the media server's: it owns the leases of the calls activated here.
 */
export function twilioStreamRoute(ctx: AppContext, nodeId: string): (app: uWS.TemplatedApp, calls: CallStarter) => void {
  const log = ctx.log.child({ role: 'media', transport: 'twilio' });
  const rate = new MessageRatePolicy(ctx.config.MEDIA_MAX_MESSAGES_PER_SECOND, ctx.config.MEDIA_MESSAGE_BURST);
  return (app, calls) => {
    app.ws<TwilioSocketData>(TWILIO_STREAM_PATH, {
      // Twilio's messages are small JSON (≈ 250 bytes per 20 ms); uWS cuts anything far larger.
      maxPayloadLength: 2 * MAX_MESSAGE_BYTES,
      maxBackpressure: 256 * 1024,
      idleTimeout: 60,
      sendPingsAutomatically: true,
      compression: uWS.DISABLED,
      upgrade: (res, req, context) => {
        res.upgrade<TwilioSocketData>(
          { stream: null },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      open: (ws) => {
        ws.getUserData().stream = new TwilioStream(ws, ctx, calls, nodeId, log, rate);
      },
      message: (ws, message, isBinary) => {
        try {
          ws.getUserData().stream?.onMessage(message, isBinary);
        } catch (err) {
          // Socket callbacks never throw (uWS would tear the process's event loop state).
          log.warn({ err }, 'twilio stream message failed');
        }
      },
      close: (ws) => {
        const data = ws.getUserData();
        const stream = data.stream;
        data.stream = null;
        try {
          stream?.onClose();
        } catch (err) {
          log.warn({ err }, 'twilio stream close failed');
        }
      },
    });
  };
}
