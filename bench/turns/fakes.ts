// Instant in-process providers for the turn benchmark: whatever the engine adds on top of
// them is the pipeline's own latency. They run inside the media server process.
import type { AdapterFactory } from '../../src/conversation/index.js';
import { DEFAULT_ENDPOINTING_MS } from '../../src/providers/registry.js';
import { AsyncQueue } from '../../src/providers/realtime/queue.js';
import type { LlmAdapter, LlmEvent, LlmRequest, SttAdapter, SttEvent, SttOpenOptions, SttSession, TtsAdapter, TtsRequest } from '../../src/providers/types.js';
import { speak } from '../../test/native/corpus.js';
import { AGENT_VOICE, CALLER_TEXT, LONG_ANSWER, SHORT_ANSWER } from './scenarios.js';

/** A frame (20 ms) is speech for the fake recogniser when louder than this (caller speech is about -20 dBFS). */
const SPEECH_FRAME_DBFS = -32;
/** Speech frames an utterance needs before the fake recogniser returns words. */
const MIN_SPEECH_FRAMES = 8;

/**
 * Utterance STT (`streaming: false`): commit() returns the fixed final at once. Like a real
 * recogniser it returns nothing for audio without speech (noise only), judged by frame level.
 */
class InstantSttSession implements SttSession {
  private readonly queue = new AsyncQueue<SttEvent>(() => this.close());
  private speechFrames = 0;
  private frameEnergy = 0;
  private frameFill = 0;

  constructor(private readonly frameSamples: number, private readonly streaming: boolean) {}

  write(pcm: Int16Array): void {
    for (let i = 0; i < pcm.length; i++) {
      this.frameEnergy += pcm[i] * pcm[i];
      if (++this.frameFill === this.frameSamples) {
        const db = 10 * Math.log10(this.frameEnergy / this.frameSamples / 32768 ** 2 + 1e-12);
        if (db > SPEECH_FRAME_DBFS) this.speechFrames++;
        this.frameEnergy = 0;
        this.frameFill = 0;
      }
    }
  }

  commit(): void {
    const heard = this.speechFrames >= MIN_SPEECH_FRAMES;
    this.speechFrames = 0;
    this.queue.push({ type: 'final', text: heard ? CALLER_TEXT : '', speechFinal: true });
    if (this.streaming && heard) this.queue.push({ type: 'utterance_end' });
  }

  async finish(): Promise<void> {
    this.queue.end();
  }

  close(): void {
    this.queue.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.queue[Symbol.asyncIterator]();
  }
}

export class InstantStt implements SttAdapter {
  readonly provider = 'bench';
  constructor(readonly streaming: boolean) {}
  async open(o: SttOpenOptions): Promise<SttSession> {
    return new InstantSttSession(o.sampleRateHz / 50, this.streaming);
  }
}

/** Answers at once, whole: the agent's prompt says which answer (`BENCH:short` / `BENCH:long`). */
export class InstantLlm implements LlmAdapter {
  readonly provider = 'bench';
  readonly model = 'instant';
  async *stream(req: LlmRequest): AsyncGenerator<LlmEvent, void, undefined> {
    const system = req.messages[0]?.role === 'system' ? req.messages[0].content : '';
    yield { type: 'text', text: system.includes('BENCH:long') ? LONG_ANSWER : SHORT_ANSWER };
    yield { type: 'end', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

/** Yields the whole sentence's PCM (real espeak-ng speech, synthesized once at start) at once. */
export class InstantTts implements TtsAdapter {
  readonly provider = 'bench';
  private readonly clips = new Map<string, Int16Array>();
  constructor(private readonly rateHz: number) {}
  outputSampleRateHz(): number {
    return this.rateHz;
  }
  clip(text: string): Int16Array {
    let pcm = this.clips.get(text);
    if (!pcm) {
      pcm = speak(text, AGENT_VOICE, this.rateHz);
      this.clips.set(text, pcm);
    }
    return pcm;
  }
  async *synthesize(req: TtsRequest): AsyncGenerator<Int16Array, void, undefined> {
    yield this.clip(req.text);
  }
}

export function benchAdapters(opts: { streamingStt: boolean; rateOutHz: number }): { factory: AdapterFactory; tts: InstantTts } {
  const tts = new InstantTts(opts.rateOutHz);
  const stt = new InstantStt(opts.streamingStt);
  const llm = new InstantLlm();
  const factory: AdapterFactory = (stages) => ({
    stt: { adapter: stt, endpointingMs: stages.stt?.endpointing_ms ?? DEFAULT_ENDPOINTING_MS },
    llm: { adapter: llm },
    tts: { adapter: tts, model: 'instant', voice: 'bench' },
  });
  return { factory, tts };
}
