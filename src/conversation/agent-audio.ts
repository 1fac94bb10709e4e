import type { Ambience } from '../audio/native.js';
import { FRAME_MS } from '../media/output-queue.js';

// The agent's side of the call at the output rate: turns of synthesized speech, cut into
// 20 ms frames for the pacer, with the text each stretch of audio speaks, so that on barge-in
// we know what the caller actually heard. Ambience is mixed into every frame (and fills the
// silence between turns) when the agent has one.

/** One sentence (or other unit of text) and where its audio sits in the turn. */
interface Segment {
  text: string;
  start: number;
  end: number;
}

export type TurnKind = 'greeting' | 'answer' | 'filler' | 'reminder' | 'goodbye' | 'acknowledgement' | 'dtmf';

/** The agent's fixed phrases, which `interruptible_greeting: false` keeps from being interrupted (contract §11). */
export const FIXED_PHRASES: ReadonlySet<string> = new Set(['greeting', 'reminder', 'goodbye']);

export class AgentTurn {
  readonly segments: Segment[] = [];
  /** Samples appended so far. */
  queued = 0;
  /** Samples sent to the caller so far. */
  sent = 0;
  /** No more audio will be appended. */
  finished = false;
  /** Dropped (barge-in or end of call): nothing more of it is sent. */
  dropped = false;
  /** Monotonic ms its first frame went out, or null. */
  firstFrameAt: number | null = null;
  /** turnSent was raised. */
  reported = false;
  /** A phrase (greeting, reminder, goodbye) the caller cut: the transcript holds what they heard of it. */
  interrupted = false;

  constructor(readonly kind: TurnKind) {}

  /** The text whose audio has played, given how much of what was sent is still ahead of real time. */
  heardText(leadSamples: number): string {
    const played = Math.max(0, this.sent - leadSamples);
    const words: string[] = [];
    for (const s of this.segments) {
      if (s.start >= played) break;
      if (s.end <= played) {
        words.push(s.text);
        continue;
      }
      // Part of this segment played: keep the share of its words that fits.
      const parts = s.text.split(/\s+/).filter(Boolean);
      const n = Math.floor((parts.length * (played - s.start)) / Math.max(1, s.end - s.start));
      if (n > 0) words.push(parts.slice(0, n).join(' '));
      break;
    }
    return words.join(' ').trim();
  }

  get text(): string {
    return this.segments.map((s) => s.text).join(' ').trim();
  }
}

interface Chunk {
  pcm: Int16Array;
  turn: AgentTurn;
}

const HISTORY_FRAMES = 16;

export interface AgentAudioEvents {
  /** The first frame of a turn went out. */
  turnStarted(turn: AgentTurn): void;
  /** The last frame of a finished turn went out. */
  turnSent(turn: AgentTurn): void;
}

export class AgentAudio {
  readonly frameSamples: number;
  private readonly chunks: Chunk[] = [];
  private head = 0;
  private readonly frame: Int16Array;
  private readonly frameBytes: Uint8Array;
  private frameTurn: AgentTurn | null = null;
  private built = false;
  private paused = false;
  /** Copies of the last frames sent, to replay what was still ahead of the caller after a pause. */
  private readonly history: Int16Array;
  private historyTurns: (AgentTurn | null)[] = [];
  private historyCount = 0;
  private historyNext = 0;
  droppedFrames = 0;

  constructor(
    readonly sampleRateHz: number,
    private readonly events: AgentAudioEvents,
    private readonly ambience: Ambience | null,
  ) {
    this.frameSamples = (sampleRateHz * FRAME_MS) / 1000;
    this.frame = new Int16Array(this.frameSamples);
    this.frameBytes = new Uint8Array(this.frame.buffer);
    this.history = new Int16Array(this.frameSamples * HISTORY_FRAMES);
  }

  /** Appends audio to `turn` (which must be the last turn written); `text` opens a new segment. */
  append(turn: AgentTurn, pcm: Int16Array, text?: string): void {
    if (turn.dropped || turn.finished) return;
    if (text !== undefined) turn.segments.push({ text, start: turn.queued, end: turn.queued });
    if (pcm.length === 0) return;
    this.chunks.push({ pcm, turn });
    turn.queued += pcm.length;
    const seg = turn.segments[turn.segments.length - 1];
    if (seg) seg.end = turn.queued;
  }

  /** No more audio for `turn`: its last frame is padded with silence so the tail plays. */
  finish(turn: AgentTurn): void {
    if (turn.finished) return;
    const rest = turn.queued % this.frameSamples;
    if (rest && !turn.dropped) this.append(turn, new Int16Array(this.frameSamples - rest));
    turn.finished = true;
    if (turn.dropped || turn.sent >= turn.queued) this.completeIfSent(turn);
  }

  /** Audio queued and not yet sent, in samples. */
  get pendingSamples(): number {
    let n = -this.head;
    for (const c of this.chunks) n += c.pcm.length;
    return Math.max(0, n);
  }

  /** Whether any speech is waiting to be sent. */
  get hasSpeech(): boolean {
    return this.chunks.length > 0 && !this.paused;
  }

  nextFrame(): Uint8Array | null {
    if (this.built) return this.frameBytes;
    if (!this.paused && this.fillSpeechFrame()) {
      if (this.ambience) this.ambience.generate(this.frame, true);
      this.built = true;
      return this.frameBytes;
    }
    if (!this.ambience) return null;
    this.ambience.generate(this.frame, false);
    this.frameTurn = null;
    this.built = true;
    return this.frameBytes;
  }

  /** The frame nextFrame() returned went out. */
  frameSent(nowMs: number): Int16Array {
    const turn = this.frameTurn;
    this.built = false;
    this.remember(turn);
    if (turn) {
      this.consume(this.frameSamples);
      if (turn.firstFrameAt === null) {
        turn.firstFrameAt = nowMs;
        this.events.turnStarted(turn);
      }
      turn.sent += this.frameSamples;
      if (turn.finished && turn.sent >= turn.queued) this.completeIfSent(turn);
    }
    return this.frame;
  }

  /** Drops every queued turn (barge-in, end of call). */
  dropAll(): void {
    const turns = new Set(this.chunks.map((c) => c.turn));
    if (this.frameTurn) turns.add(this.frameTurn);
    this.chunks.length = 0;
    this.head = 0;
    this.built = false;
    this.frameTurn = null;
    this.paused = false;
    for (const t of turns) t.dropped = true;
  }

  /** Drops one turn's queued audio (a filler superseded by the answer, say). */
  dropTurn(turn: AgentTurn): void {
    if (this.frameTurn === turn) {
      this.built = false;
      this.frameTurn = null;
    }
    if (this.chunks[0]?.turn === turn) this.head = 0;
    const keep = this.chunks.filter((c) => c.turn !== turn);
    this.chunks.splice(0, this.chunks.length, ...keep);
    turn.dropped = true;
  }

  /**
   * Holds speech (false-interruption window). The frames still ahead of the caller — sent
   * within the last `leadSamples` — go back to the front so a resume replays them.
   */
  pause(leadSamples: number): void {
    if (this.paused) return;
    this.paused = true;
    this.built = false;
    this.frameTurn = null;
    const frames = Math.min(this.historyCount, Math.ceil(leadSamples / this.frameSamples));
    for (let k = 1; k <= frames; k++) {
      const slot = (this.historyNext - k + HISTORY_FRAMES) % HISTORY_FRAMES;
      const turn = this.historyTurns[slot];
      if (!turn || turn.dropped) break;
      const copy = this.history.slice(slot * this.frameSamples, (slot + 1) * this.frameSamples);
      if (this.head > 0) {
        this.chunks[0] = { pcm: this.chunks[0].pcm.subarray(this.head), turn: this.chunks[0].turn };
        this.head = 0;
      }
      this.chunks.unshift({ pcm: copy, turn });
      turn.sent -= this.frameSamples;
    }
    this.historyCount = 0;
  }

  resume(): void {
    this.paused = false;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  private fillSpeechFrame(): boolean {
    if (this.chunks.length === 0) return false;
    const turn = this.chunks[0].turn;
    let filled = 0;
    let i = 0;
    let off = this.head;
    // A frame never mixes two turns: each turn's audio is a whole number of frames once finished.
    while (filled < this.frameSamples && i < this.chunks.length && this.chunks[i].turn === turn) {
      const c = this.chunks[i].pcm;
      const take = Math.min(this.frameSamples - filled, c.length - off);
      this.frame.set(c.subarray(off, off + take), filled);
      filled += take;
      off += take;
      if (off >= c.length) {
        i++;
        off = 0;
      }
    }
    if (filled < this.frameSamples) return false; // the rest of the frame is still being synthesized
    this.frameTurn = turn;
    return true;
  }

  private consume(samples: number): void {
    while (samples > 0 && this.chunks.length) {
      const c = this.chunks[0].pcm;
      const take = Math.min(samples, c.length - this.head);
      this.head += take;
      samples -= take;
      if (this.head >= c.length) {
        this.chunks.shift();
        this.head = 0;
      }
    }
  }

  private remember(turn: AgentTurn | null): void {
    this.history.set(this.frame, this.historyNext * this.frameSamples);
    this.historyTurns[this.historyNext] = turn;
    this.historyNext = (this.historyNext + 1) % HISTORY_FRAMES;
    this.historyCount = Math.min(HISTORY_FRAMES, this.historyCount + 1);
  }

  private completeIfSent(turn: AgentTurn): void {
    if (turn.reported) return;
    turn.reported = true;
    if (!turn.dropped) this.events.turnSent(turn);
  }
}
