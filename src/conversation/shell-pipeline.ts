import type { CallHost, CallPipeline } from '../media/call-pipeline.js';
import type { PcmMessage } from '../audio/native.js';
import type { TranscriptEntry } from '../contract/events.js';
import type { CallShell } from './call-shell.js';

/** A call as the session sees it (CallPipeline): each engine's class, answered by its shell. */
export abstract class ShellPipeline implements CallPipeline {
  protected abstract readonly shell: CallShell;

  /** The call's shell, for what takes a call over from its engine (voicemail.ts). */
  get callShell(): CallShell {
    return this.shell;
  }

  start(host: CallHost): void {
    this.shell.start(host);
  }

  pushAudio(message: PcmMessage): number {
    return this.shell.pushAudio(message);
  }

  nextFrame(): Uint8Array | null {
    return this.shell.line.nextFrame();
  }

  frameSent(): void {
    this.shell.line.frameSent();
  }

  underrun(ms: number): void {
    this.shell.line.underrun(ms);
  }

  onDtmf(digit: string): void {
    this.shell.onDtmf(digit);
  }

  stop(): TranscriptEntry[] {
    return this.shell.stop();
  }

  get droppedFrames(): number {
    return this.shell.audio.droppedFrames;
  }
}
