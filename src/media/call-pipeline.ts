import type { TranscriptEntry } from '../contract/events.js';
import type { ControlFrame } from '../contract/control-frames.js';
import type { EndReason, EndSignal } from '../sessions/settlement.js';
import type { PcmMessage } from '../audio/native.js';

// What runs a call behind a transport: the echo call (load tests) or the conversation
// engine. The session (voice-session.ts) feeds it caller audio and pulls paced frames from it;
// the pipeline talks back through a CallHost. Neither side knows the wire format.

export interface CallHost {
  /** A control frame for the caller (spec 4.7): transcript, interrupted, turn_complete, error. */
  sendControl(frame: ControlFrame): void;
  /** Queued playback was dropped: the far end must drop what it buffered too (Twilio `clear`). */
  clearPlayback(): void;
  /** Ends the call from the server side (`session_ended`, then close). */
  end(outcome: EndSignal['outcome'], reason: EndReason): void;
  /**
   * Output became available outside pushAudio (speech synthesised, playback resumed): sends
   * what is due now. Required: the pacer's ticks only visit calls that already hold frames
   * back, so output produced without a kick would wait for the next caller message.
   */
  kick(): void;
  /** Milliseconds of agent audio sent but not yet due to have played (the pacing lead). */
  leadMs(): number;
}

export interface CallPipeline {
  /** Caller PCM16LE at sample_rate_in. Returns 20 ms frames taken in; throws NativeError on bad length. */
  pushAudio(message: PcmMessage): number;
  /** The next 20 ms frame to send (PCM16LE at sample_rate_out), or null. Valid until frameSent(). */
  nextFrame(): Uint8Array | null;
  /** The frame nextFrame() returned went out. */
  frameSent(): void;
  /**
   * Before the next frame: the far end played `ms` of silence this process never sent (its
   * event loop stalled while the caller's audio queued). Pipelines with an echo reference
   * append that silence to it.
   */
  underrun?(ms: number): void;
  /**
   * The audio just pushed had queued while the call was being set up (a client streams from the
   * socket's open). A pipeline that plays caller audio back in real time drops what would now
   * play late; the conversation engine hears it like any audio.
   */
  backlogPushed?(): void;
  /** A DTMF key the caller pressed (carrier calls). */
  onDtmf(digit: string): void;
  /** The socket is open: greet, start timers. */
  start(host: CallHost): void;
  /** The call is over: cancel every provider call and timer. Returns the transcript. */
  stop(): TranscriptEntry[];
  readonly droppedFrames: number;
}
