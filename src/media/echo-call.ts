import type { TranscriptEntry } from '../contract/events.js';
import type { CallPipeline } from './call-pipeline.js';
import { EchoLoop } from './echo-loop.js';
import type { PcmMessage } from '../audio/native.js';
import { OutputQueue } from './output-queue.js';

/** Output waiting beyond this is dropped oldest-first: the client is not reading (backpressure). */
export const OUTPUT_QUEUE_MS = 400;

/**
 * The caller's audio played back through the native framer, VAD and resampler: the media
 * benchmark's load and the socket tests' pipeline (`MEDIA_PIPELINE=echo`).
 */
export class EchoCall implements CallPipeline {
  private readonly loop: EchoLoop;
  private readonly queue: OutputQueue;

  constructor(sampleRateIn: number, sampleRateOut: number) {
    this.loop = new EchoLoop(sampleRateIn, sampleRateOut);
    this.queue = new OutputQueue(sampleRateOut, OUTPUT_QUEUE_MS);
  }

  pushAudio(message: PcmMessage): number {
    return this.loop.push(message, this.queue);
  }

  nextFrame(): Uint8Array | null {
    return this.queue.peek();
  }

  frameSent(): void {
    this.queue.shift();
  }

  /**
   * Caller audio that queued during set-up would stay late for the whole call: what the pacer's
   * lead already let out (60 ms) plays, the rest is dropped.
   */
  backlogPushed(): void {
    this.queue.clearCounted();
  }

  onDtmf(): void {}

  start(): void {}

  stop(): TranscriptEntry[] {
    this.queue.clear();
    return [];
  }

  get droppedFrames(): number {
    return this.queue.droppedFrames;
  }
}
