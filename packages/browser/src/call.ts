import { Emitter } from './events.js';

// One browser call: the microphone through the capture worklet to the media socket, the
// socket's audio through the playback worklet to the speakers, control frames to events.

type ServerFrame =
  | { type: 'transcript'; role: 'user' | 'assistant'; text: string }
  | { type: 'interrupted'; heard?: string }
  | { type: 'turn_complete' }
  | { type: 'error'; message: string }
  | { type: 'session_ended'; reason: string };

export interface CallParts {
  ws: WebSocket;
  context: AudioContext;
  stream: MediaStream;
  capture: AudioWorkletNode;
  playback: AudioWorkletNode;
  sessionId: string;
}

export class Call extends Emitter {
  readonly sessionId: string;
  /** Resolves with the `end` event. */
  readonly ended: Promise<{ reason: string | null; code: number }>;
  private muted = false;
  private inputLevel = 0;
  private outputLevel = 0;
  private endReason: string | null = null;
  private pendingDropped: ((ms: number) => void) | null = null;

  constructor(private readonly parts: CallParts) {
    super();
    this.sessionId = parts.sessionId;
    const { ws, capture, playback } = parts;
    ws.binaryType = 'arraybuffer';
    capture.port.onmessage = (ev: MessageEvent<{ type: 'frame'; pcm: Int16Array; level: number }>) => {
      this.inputLevel = ev.data.level;
      if (ws.readyState === WebSocket.OPEN) ws.send(ev.data.pcm.buffer);
      this.emit('level', { input: this.inputLevel, output: this.outputLevel });
    };
    playback.port.onmessage = (ev: MessageEvent<{ type: 'level'; level: number } | { type: 'flushed'; droppedMs: number }>) => {
      if (ev.data.type === 'level') this.outputLevel = ev.data.level;
      else this.pendingDropped?.(ev.data.droppedMs);
    };
    ws.onmessage = (ev: MessageEvent<ArrayBuffer | string>) => {
      if (typeof ev.data !== 'string') {
        const pcm = new Int16Array(ev.data, 0, ev.data.byteLength >> 1);
        playback.port.postMessage({ type: 'audio', pcm }, [ev.data]);
        return;
      }
      this.onFrame(JSON.parse(ev.data) as ServerFrame);
    };
    this.ended = new Promise((resolve) => {
      ws.onclose = (ev) => {
        void this.release();
        const end = { reason: this.endReason, code: ev.code };
        this.emit('end', end);
        resolve(end);
      };
    });
  }

  private onFrame(frame: ServerFrame): void {
    switch (frame.type) {
      case 'transcript':
        this.emit('transcript', { role: frame.role, text: frame.text });
        break;
      case 'turn_complete':
        this.emit('turn', {});
        break;
      case 'interrupted': {
        // Flush first, report after the worklet says how much it dropped.
        const heard = frame.heard;
        this.pendingDropped = (droppedMs) => {
          this.pendingDropped = null;
          this.emit('interrupted', { heard, droppedMs });
        };
        this.parts.playback.port.postMessage({ type: 'flush' });
        break;
      }
      case 'error':
        this.emit('error', { message: frame.message });
        break;
      case 'session_ended':
        this.endReason = frame.reason;
        break;
    }
  }

  get isMuted(): boolean {
    return this.muted;
  }

  /** Sends silence instead of the microphone (the call keeps going). */
  mute(muted = true): void {
    this.muted = muted;
    this.parts.capture.port.postMessage({ type: 'mute', muted });
  }

  /** Ends the call: the server says `session_ended` and closes the socket. */
  hangUp(): void {
    const { ws } = this.parts;
    if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'stop' }));
    else if (ws.readyState === WebSocket.CONNECTING) ws.close();
  }

  /** Current levels (RMS, 0–1). */
  get levels(): { input: number; output: number } {
    return { input: this.inputLevel, output: this.outputLevel };
  }

  private async release(): Promise<void> {
    for (const track of this.parts.stream.getTracks()) track.stop();
    this.parts.capture.disconnect();
    this.parts.playback.disconnect();
    if (this.parts.context.state !== 'closed') await this.parts.context.close();
  }
}
