// Cuts a stream of LLM tokens into sentences for TTS, as early as it safely can. A full stop
// only ends a sentence when followed by white space (so "3.5" and "example.com" stay whole)
// and not after a known abbreviation or a single-letter initial ("Dr.", "e.g.", "J. Smith").
// An ellipsis ends a sentence only when the next word starts with a capital or digit.
// CJK full stops (。！？) end a sentence at once; closing quotes and brackets stay with it.

export interface SentenceSplitterOptions {
  /** Sentences shorter than this are joined to the next one (a one-word "Sure." is fine at 0). */
  minChars?: number;
  /** Extra abbreviations (lower case, without the final dot). */
  abbreviations?: string[];
}

const ABBREVIATIONS = new Set([
  'mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'ft', 'vs', 'e.g', 'i.e', 'approx', 'no', 'nos',
  'inc', 'ltd', 'co', 'corp', 'dept', 'est', 'fig', 'gen', 'gov', 'lt', 'col', 'capt', 'sgt', 'rev', 'hon',
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun',
  'a.m', 'p.m', 'u.s', 'u.k', 'ph.d', 'vol', 'pp', 'cf', 'al', 'ave', 'blvd', 'rd', 'tel', 'ext', 'min', 'max',
]);
const CJK_STOPS = new Set(['。', '！', '？', '｡']);
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '}', '»', '」', '』', '）']);
const isSpace = (c: string) => /\s/.test(c);

export class SentenceSplitter {
  private buffer = '';
  private scanFrom = 0;
  private readonly minChars: number;
  private readonly abbreviations: Set<string>;

  constructor(opts: SentenceSplitterOptions = {}) {
    this.minChars = opts.minChars ?? 0;
    this.abbreviations = new Set([...ABBREVIATIONS, ...(opts.abbreviations ?? []).map((a) => a.toLowerCase())]);
  }

  /** Adds a token; returns the sentences it completed (maybe none). */
  push(token: string): string[] {
    this.buffer += token;
    const out: string[] = [];
    for (;;) {
      const end = this.findBoundary();
      if (end === -1) break;
      const sentence = this.buffer.slice(0, end).trim();
      if (sentence.length < this.minChars) {
        // Too short on its own: keep it and look for the next boundary after it.
        this.scanFrom = end;
        continue;
      }
      this.buffer = this.buffer.slice(end).replace(/^\s+/, '');
      this.scanFrom = 0;
      if (sentence) out.push(sentence);
    }
    return out;
  }

  /** The rest (end of the answer); the splitter is empty afterwards. */
  flush(): string | null {
    const rest = this.buffer.trim();
    this.buffer = '';
    this.scanFrom = 0;
    return rest || null;
  }

  /** Drops everything (barge-in). */
  reset(): void {
    this.buffer = '';
    this.scanFrom = 0;
  }

  /** Index just past the first complete sentence, or -1 (none yet, or need more text). */
  private findBoundary(): number {
    const b = this.buffer;
    for (let i = this.scanFrom; i < b.length; i++) {
      const c = b[i];
      if (c === '\n') {
        if (b.slice(0, i).trim()) return i + 1;
        continue;
      }
      if (CJK_STOPS.has(c)) return this.skipClosers(i + 1);
      if (c !== '.' && c !== '!' && c !== '?' && c !== '…') continue;

      let j = i;
      while (j < b.length && (b[j] === '.' || b[j] === '!' || b[j] === '?' || b[j] === '…')) j++;
      const run = b.slice(i, j);
      const after = this.skipClosers(j);
      if (after >= b.length) return -1; // cannot tell yet
      if (!isSpace(b[after])) {
        i = j - 1;
        continue; // "3.5", "example.com", "?!x"
      }
      const ellipsis = run.includes('…') || /\.\.+/.test(run);
      if (ellipsis) {
        let k = after;
        while (k < b.length && isSpace(b[k])) k++;
        if (k >= b.length) return -1;
        if (/[\p{Lu}\p{N}]/u.test(b[k])) return after;
        i = j - 1;
        continue;
      }
      if (run === '.' && this.isAbbreviation(i)) {
        i = j - 1;
        continue;
      }
      return after;
    }
    return -1;
  }

  private skipClosers(k: number): number {
    while (k < this.buffer.length && CLOSERS.has(this.buffer[k])) k++;
    return k;
  }

  /** The word before the dot at `dot` is an abbreviation or an initial. */
  private isAbbreviation(dot: number): boolean {
    let s = dot;
    while (s > 0 && !isSpace(this.buffer[s - 1]) && !'("\'“‘['.includes(this.buffer[s - 1])) s--;
    const word = this.buffer.slice(s, dot);
    if (!word) return false;
    if (/^\p{L}$/u.test(word) && /\p{Lu}/u.test(word)) return true; // "J." initial
    return this.abbreviations.has(word.toLowerCase());
  }
}

/** Splits a whole text (for tests and one-shot synthesis). */
export function splitSentences(text: string, opts?: SentenceSplitterOptions): string[] {
  const s = new SentenceSplitter(opts);
  const out = s.push(text);
  const rest = s.flush();
  return rest ? [...out, rest] : out;
}
