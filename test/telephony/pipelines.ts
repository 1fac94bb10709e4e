import type { CallHost, CallPipeline } from '../../src/media/call-pipeline.js';
import { EchoCall } from '../../src/media/echo-call.js';
import type { PcmMessage } from '../../src/audio/native.js';
import { OutputQueue } from '../../src/media/output-queue.js';
import type { SessionRow } from '../../src/db/repos/voice-sessions.js';

// Call pipelines for the bridge tests, picked per session by metadata.pipeline: `talker` speaks
// first (a tone "greeting") and stops at once when the caller speaks over it (barge-in:
// host.clearPlayback(), as the conversation engine does), records DTMF, and hangs up on `#`.
// Anything else is the echo pipeline.

export const GREETING_MS = 3000;
const SPEECH_RMS = 1500;

export class TalkerPipeline implements CallPipeline {
  readonly digits: string[] = [];
  bargeIns = 0;
  private host: CallHost | null = null;
  private readonly queue: OutputQueue;
  private talking = false;

  constructor(private readonly rateHz: number) {
    this.queue = new OutputQueue(rateHz, GREETING_MS + 1000);
  }

  start(host: CallHost): void {
    this.host = host;
    const n = (this.rateHz * GREETING_MS) / 1000;
    const tone = new Int16Array(n);
    for (let i = 0; i < n; i++) tone[i] = Math.round(6000 * Math.sin((2 * Math.PI * 600 * i) / this.rateHz));
    this.queue.write(tone, n);
    this.talking = true;
    host.kick();
  }

  pushAudio(message: PcmMessage): number {
    const bytes = message instanceof ArrayBuffer ? new Uint8Array(message) : message;
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength >> 1);
    let sum = 0;
    for (const s of pcm) sum += s * s;
    const rms = Math.sqrt(sum / Math.max(1, pcm.length));
    if (rms > SPEECH_RMS && this.talking) {
      // The caller talks over the agent: drop what is queued here and at the far end.
      this.talking = false;
      this.bargeIns++;
      this.queue.clear();
      this.host!.clearPlayback();
      this.host!.sendControl({ type: 'interrupted' });
    }
    return Math.floor(pcm.length / (this.rateHz / 50));
  }

  nextFrame(): Uint8Array | null {
    const frame = this.queue.peek();
    if (!frame && this.talking) {
      this.talking = false;
      this.host!.sendControl({ type: 'turn_complete' });
    }
    return frame;
  }

  frameSent(): void {
    this.queue.shift();
  }

  onDtmf(digit: string): void {
    this.digits.push(digit);
    if (digit === '#') this.host!.end('completed', 'agent_hangup');
  }

  stop() {
    this.queue.clear();
    return [];
  }

  get droppedFrames(): number {
    return this.queue.droppedFrames;
  }
}

/** The factory for MediaServerOptions.pipelineFactory; `talkers` keeps every talker by session id. */
export function testPipelines() {
  const talkers = new Map<string, TalkerPipeline>();
  const factory = (row: SessionRow): CallPipeline => {
    if ((row.metadata as { pipeline?: string } | null)?.pipeline === 'talker') {
      const p = new TalkerPipeline(row.sample_rate_out);
      talkers.set(row.id, p);
      return p;
    }
    return new EchoCall(row.sample_rate_in, row.sample_rate_out);
  };
  return { talkers, factory };
}
