// Which words of a realtime response the caller heard. The provider streams the audio and
// its transcript as two interleaved series of deltas; a delta's text is taken to be spoken by
// the audio that arrives from then on, up to the next delta that follows new audio. Text that
// runs ahead of the audio (several deltas with no audio between them) is one stretch, spread
// evenly over the audio that follows it. On barge-in, the played sample count maps back to a
// character offset by linear interpolation inside its stretch, cut back to a whole word.

interface Mark {
  /** Audio samples queued when this stretch of text began. */
  samples: number;
  /** Offset of the stretch in the text. */
  chars: number;
}

export class HeardText {
  private readonly marks: Mark[] = [];
  private text = '';
  private samples = 0;

  /** A transcript delta arrived; `queuedSamples` of audio had arrived before it. */
  addText(delta: string, queuedSamples: number = this.samples): void {
    if (!delta) return;
    const last = this.marks[this.marks.length - 1];
    if (!last || queuedSamples > last.samples) this.marks.push({ samples: queuedSamples, chars: this.text.length });
    this.text += delta;
  }

  /** Audio arrived (samples at the output rate). */
  addAudio(samples: number): void {
    this.samples += samples;
  }

  get queuedSamples(): number {
    return this.samples;
  }

  /** Everything the response said so far. */
  get fullText(): string {
    return this.text.replace(/\s+/g, ' ').trim();
  }

  /** The words spoken by the first `playedSamples` of the audio. */
  heardAt(playedSamples: number): string {
    if (playedSamples <= 0 || this.marks.length === 0) return '';
    if (playedSamples >= this.samples) return this.fullText;
    let k = -1;
    for (let i = 0; i < this.marks.length && this.marks[i].samples <= playedSamples; i++) k = i;
    if (k < 0) return '';
    const m = this.marks[k];
    const next = this.marks[k + 1] ?? { samples: this.samples, chars: this.text.length };
    const share = next.samples > m.samples ? Math.min(1, (playedSamples - m.samples) / (next.samples - m.samples)) : 1;
    return cutAtWord(this.text, Math.floor(m.chars + (next.chars - m.chars) * share));
  }
}

/** The first `n` characters of `text`, without a word that was only partly reached. */
export function cutAtWord(text: string, n: number): string {
  if (n >= text.length) return text.replace(/\s+/g, ' ').trim();
  const head = text.slice(0, n);
  const whole = /\s/.test(text[n] ?? ' ') ? head : head.replace(/\S+$/, '');
  return whole.replace(/\s+/g, ' ').trim();
}
