import { Resampler } from '../audio/native.js';
import { abortedError, isProviderError, ProviderError } from '../providers/errors.js';
import type { StageAdapters } from '../providers/registry.js';
import { concatPcm } from '../providers/tts/pcm.js';
import type { AgentAudio, AgentTurn } from './agent-audio.js';

// Text to the agent's audio: one TTS request per sentence, in order, each streamed into the
// turn as it arrives (so the first words play while the rest is synthesized), resampled to the
// call's output rate when the provider answers at another.

export type TtsStage = NonNullable<StageAdapters['tts']>;

const RESAMPLE_SLICE = 4096;

/** Converts `pcm` from `fromHz` to `toHz`, in slices, with a resampler kept across calls. */
export class RateConverter {
  private readonly resampler: Resampler | null;
  constructor(fromHz: number, toHz: number) {
    this.resampler = fromHz === toHz ? null : new Resampler({ inRateHz: fromHz, outRateHz: toHz, maxInputSamples: RESAMPLE_SLICE });
  }
  convert(pcm: Int16Array): Int16Array {
    if (!this.resampler) return pcm;
    if (pcm.length <= RESAMPLE_SLICE) return this.resampler.output.slice(0, this.resampler.process(pcm));
    const parts: Int16Array[] = [];
    for (let off = 0; off < pcm.length; off += RESAMPLE_SLICE) {
      const n = this.resampler.process(pcm.subarray(off, Math.min(pcm.length, off + RESAMPLE_SLICE)));
      parts.push(this.resampler.output.slice(0, n));
    }
    return concatPcm(parts);
  }
}

/** Synthesizes `text` whole at `rateHz` (phrases said outside answers). */
export async function synthesizeWhole(tts: TtsStage, text: string, rateHz: number, signal: AbortSignal): Promise<Int16Array> {
  const from = tts.adapter.outputSampleRateHz(rateHz);
  const conv = new RateConverter(from, rateHz);
  const parts: Int16Array[] = [];
  for await (const chunk of tts.adapter.synthesize({ text, voice: tts.voice, model: tts.model, sampleRateHz: rateHz, speed: tts.speed, signal })) {
    parts.push(conv.convert(chunk));
  }
  return concatPcm(parts);
}

export interface SpeakerHooks {
  /** Audio was queued: pace now. */
  kick(): void;
  /** May this text be synthesized (max_chars_per_min)? */
  allow(text: string): boolean;
  /** A sentence failed; the turn goes on without it when recoverable. */
  failed(err: ProviderError): void;
}

type Item = { text: string } | { pcm: Int16Array };

/** Speaks one agent turn: items in order, then finishes the turn. */
export class TurnSpeaker {
  private readonly items: Item[] = [];
  private ended = false;
  private wake: (() => void) | null = null;
  readonly done: Promise<void>;
  private readonly controller = new AbortController();

  constructor(
    private readonly tts: TtsStage,
    private readonly audio: AgentAudio,
    readonly turn: AgentTurn,
    private readonly hooks: SpeakerHooks,
  ) {
    this.done = this.run();
  }

  say(text: string): void {
    const t = text.trim();
    if (t) this.push({ text: t });
  }

  play(pcm: Int16Array): void {
    this.push({ pcm });
  }

  /** No more items: the turn finishes after the last one. */
  end(): void {
    this.ended = true;
    this.wake?.();
  }

  /** Stops synthesis at once (barge-in, end of call). */
  cancel(): void {
    this.ended = true;
    this.items.length = 0;
    this.controller.abort();
    this.wake?.();
  }

  private push(item: Item): void {
    if (this.ended) return;
    this.items.push(item);
    this.wake?.();
  }

  private async run(): Promise<void> {
    const rate = this.audio.sampleRateHz;
    for (;;) {
      while (this.items.length === 0 && !this.ended) await new Promise<void>((r) => (this.wake = r));
      this.wake = null;
      if (this.controller.signal.aborted) return;
      const item = this.items.shift();
      if (!item) break;
      if ('pcm' in item) {
        this.audio.append(this.turn, item.pcm);
        this.hooks.kick();
        continue;
      }
      if (!this.hooks.allow(item.text)) continue;
      try {
        await this.synthesize(item.text, rate);
      } catch (err) {
        if (this.controller.signal.aborted) return;
        const e = isProviderError(err) ? err : new ProviderError('protocol', `${this.tts.adapter.provider} speech failed`, { provider: this.tts.adapter.provider, cause: err });
        if (e.kind === 'aborted') return;
        this.hooks.failed(e);
        if (!e.recoverable) return this.cancel();
      }
    }
    this.audio.finish(this.turn);
    this.hooks.kick();
  }

  private async synthesize(text: string, rate: number): Promise<void> {
    const signal = this.controller.signal;
    if (signal.aborted) throw abortedError(this.tts.adapter.provider);
    const conv = new RateConverter(this.tts.adapter.outputSampleRateHz(rate), rate);
    let first = true;
    for await (const chunk of this.tts.adapter.synthesize({ text, voice: this.tts.voice, model: this.tts.model, sampleRateHz: rate, speed: this.tts.speed, signal })) {
      if (signal.aborted) return;
      this.audio.append(this.turn, conv.convert(chunk), first ? text : undefined);
      first = false;
      this.hooks.kick();
    }
    if (first) this.audio.append(this.turn, new Int16Array(0), text);
  }
}
