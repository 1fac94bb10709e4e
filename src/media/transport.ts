// The wire side of a call: the browser/own-socket media socket (PCM16 or Opus binary + JSON
// control frames) or a carrier's media stream (Twilio: μ-law in base64 JSON). A transport
// decodes what arrives into VoiceSession calls and encodes what the session sends.

import type { ControlFrame } from '../contract/control-frames.js';

export interface MediaTransport {
  /** One 20 ms PCM16LE frame at the session's sample_rate_out. */
  sendAudio(frame: Uint8Array): void;
  /** A control frame (spec 4.7); transports without a control channel may map or drop it. */
  sendControl(frame: ControlFrame): void;
  /** Playback queued at the far end must be dropped now (barge-in). */
  clearPlayback(): void;
  /** Bytes written but not yet taken by the peer (backpressure). */
  bufferedBytes(): number;
  /** Runs `fn` with writes batched into one syscall. */
  cork(fn: () => void): void;
  /** Closes with a WebSocket close code. */
  close(code: number, reason: string): void;
}
