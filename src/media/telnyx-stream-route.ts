import uWS from 'uWebSockets.js';
import type { AppContext } from '../shared/app-context.js';
import type { CallStarter } from './call-registry.js';
import type { VoiceSession } from './voice-session.js';
import { activateCarrierStream } from '../telephony/activation.js';
import { TELNYX_STREAM_PATH } from '../telephony/urls.js';
import { TelnyxTransport, type TelnyxSocketData } from './telnyx-transport.js';
import { MESSAGE_RATE_CLOSE_CODE, MESSAGE_RATE_CLOSE_REASON, MessageRatePolicy, type MessageRateBucket } from './message-rate.js';
import { START_TIMEOUT_MS } from './twilio-stream-route.js';
import {
  decodeClientState,
  MAX_MESSAGE_BYTES,
  parseTelnyxInbound,
  PCMU,
  PCMU_SAMPLE_RATE_HZ,
  type TelnyxStart,
} from '../carriers/telnyx/media-stream-protocol.js';

// The media socket Telnyx connects to for a call's `stream_url` (`/v2/carriers/telnyx/stream`):
// the Twilio stream route's twin. The call is authorised by the `start` frame: its client_state
// (set by our dial or answer command) carries the session id and the single-use token, and its
// call_control_id must be the session's call. Until then nothing else is accepted.
//
//   awaiting start ──start──▶ activating ──ok──▶ running ──stop / close──▶ closed
//         │                       └──refused──▶ closed with the spec's close code
//         └──no start within START_TIMEOUT_MS──▶ closed (4401)
//
// Every frame counts against the socket's message rate limit; over it, the socket is closed with
// 1008. An `error` frame from Telnyx is logged. A running call ends as a hang-up.

const STOP_CODE = 1000;

interface Log {
  info: (o: object, m: string) => void;
  warn: (o: object, m: string) => void;
  debug: (o: object, m: string) => void;
}

type State = 'awaiting_start' | 'activating' | 'running' | 'closed';

/** One Telnyx stream socket: the protocol state in front of its transport and call. */
class TelnyxStream {
  private state: State = 'awaiting_start';
  private transport: TelnyxTransport | null = null;
  private session: VoiceSession | null = null;
  private readonly startTimer: NodeJS.Timeout;
  private readonly bucket: MessageRateBucket;
  /** The session id the `start` message names (not yet proven: logs only). */
  private claimedSessionId: string | null = null;
  protocolErrors = 0;

  constructor(
    private readonly ws: uWS.WebSocket<TelnyxSocketData>,
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
    const parsed = parseTelnyxInbound(Buffer.from(message));
    if (!parsed.ok) {
      this.protocolErrors++;
      this.log.debug({ reason: parsed.error.reason, field: parsed.error.field }, 'telnyx stream: message ignored');
      return;
    }
    const m = parsed.message;
    switch (m.event) {
      case 'start':
        if (this.state === 'awaiting_start') this.start(m);
        return;
      case 'media':
        if (this.state !== 'running') return; // before the call runs: a few ms of ringback at most
        if (m.track !== 'inbound' && m.track !== 'inbound_track') return void this.transport!.droppedMessages++;
        return this.transport!.onCallerAudio(m.audio);
      case 'dtmf':
        if (this.state === 'running') this.session!.onDtmf(m.digit);
        return;
      case 'stop':
        // The call is over. Before it runs, just leave: an activated call is then abandoned.
        if (this.state === 'running') return this.session!.onStop();
        return this.refuse(STOP_CODE, 'stream stopped');
      case 'error':
        this.log.warn({ session_id: this.session?.id ?? this.claimedSessionId, code: m.code, title: m.title }, 'telnyx stream error frame');
        return;
      case 'mark': // our turn_complete mark came back: that audio has played
      case 'connected':
        return;
    }
  }

  private start(m: TelnyxStart): void {
    clearTimeout(this.startTimer);
    const f = m.mediaFormat;
    if (f.encoding !== PCMU || f.sampleRate !== PCMU_SAMPLE_RATE_HZ || f.channels !== 1) {
      return this.refuse(1003, 'media format must be PCMU 8000 Hz mono');
    }
    const claim = decodeClientState(m.clientState);
    if (!claim || !('sessionId' in claim)) return this.refuse(4401, 'no session in client_state');
    this.state = 'activating';
    this.transport = new TelnyxTransport(this.ws, m.streamId);
    const start = { kind: 'telnyx' as const, sessionId: claim.sessionId, token: claim.token, accountSid: '', callSid: m.callControlId };
    this.claimedSessionId = start.sessionId.slice(0, 36);
    this.calls.start(() => activateCarrierStream(this.ctx, start, this.nodeId)).then(
      (started) => {
        if (!started.ok) {
          this.log.info({ session_id: start.sessionId.slice(0, 36), code: started.code, reason: started.reason }, 'telnyx stream refused');
          return this.refuse(started.code, started.reason);
        }
        // Telnyx hung up while the call was being activated: it ends at once, as a hang-up.
        if (this.state === 'closed') return this.calls.abandon(started.session);
        this.state = 'running';
        this.session = started.session;
        this.transport!.bind(started.session);
        this.calls.attach(started.session, this.transport!);
      },
      (err: unknown) => {
        this.log.warn({ err }, 'telnyx stream activation failed');
        this.refuse(1011, 'internal error');
      },
    );
  }

  /**
   * Over the message rate: logged and closed 1008. A running
   * call's close comes back through onClose (uWS runs it inside `end`) and ends the call as a
   * hang-up; one still activating is abandoned when its activation returns.
   */
  private overRate(): void {
    this.log.warn(
      { session_id: this.session?.id ?? this.claimedSessionId, stream_id: this.transport?.streamId ?? null, state: this.state, max_per_second: this.rate.perSecond, burst: this.rate.burst },
      'telnyx stream over its message rate limit: closed with 1008',
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

/** The route, for `startMediaServer(ctx, { routes: [telnyxStreamRoute(ctx, nodeId)] })` (nodeId: the media server's). */
export function telnyxStreamRoute(ctx: AppContext, nodeId: string): (app: uWS.TemplatedApp, calls: CallStarter) => void {
  const log = ctx.log.child({ role: 'media', transport: 'telnyx' });
  const rate = new MessageRatePolicy(ctx.config.MEDIA_MAX_MESSAGES_PER_SECOND, ctx.config.MEDIA_MESSAGE_BURST);
  return (app, calls) => {
    app.ws<TelnyxSocketData>(TELNYX_STREAM_PATH, {
      // Telnyx's frames are small JSON (≈ 250 bytes per 20 ms); uWS cuts anything far larger.
      maxPayloadLength: 2 * MAX_MESSAGE_BYTES,
      maxBackpressure: 256 * 1024,
      idleTimeout: 60,
      sendPingsAutomatically: true,
      compression: uWS.DISABLED,
      upgrade: (res, req, context) => {
        res.upgrade<TelnyxSocketData>(
          { stream: null },
          req.getHeader('sec-websocket-key'),
          req.getHeader('sec-websocket-protocol'),
          req.getHeader('sec-websocket-extensions'),
          context,
        );
      },
      open: (ws) => {
        ws.getUserData().stream = new TelnyxStream(ws, ctx, calls, nodeId, log, rate);
      },
      message: (ws, message, isBinary) => {
        try {
          ws.getUserData().stream?.onMessage(message, isBinary);
        } catch (err) {
          // Socket callbacks never throw (uWS would tear the process's event loop state).
          log.warn({ err }, 'telnyx stream message failed');
        }
      },
      close: (ws) => {
        const data = ws.getUserData();
        const stream = data.stream;
        data.stream = null;
        try {
          stream?.onClose();
        } catch (err) {
          log.warn({ err }, 'telnyx stream close failed');
        }
      },
    });
  };
}
