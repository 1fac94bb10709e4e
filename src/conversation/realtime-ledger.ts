import type { LlmToolCall, RealtimeSession } from '../providers/types.js';
import type { AgentTurn } from './agent-audio.js';
import { HeardText } from './realtime-heard.js';
import type { RateConverter } from './speaker.js';

// The realtime call's book of responses (docs/realtime.md "Responses we ask for"): the ones
// the provider is generating or whose audio is queued or playing, and the ones we asked for.
// A conversation runs one response at a time and the server starts its own after each caller
// turn, so our requests wait in a queue and response.create goes out only when none runs;
// its metadata tells our responses from the server's.

/** A response we asked for that never started is given up after this long. */
const REQUEST_TIMEOUT_MS = 10_000;
const META_PURPOSE = 'vas_purpose';
const META_REQUEST = 'vas_request';

export type Purpose = 'greeting' | 'answer' | 'filler' | 'reminder' | 'goodbye';
const PURPOSES = new Set<string>(['greeting', 'answer', 'filler', 'reminder', 'goodbye']);

export interface ResponseRequest {
  purpose: Purpose;
  instructions?: string;
  seq: number;
  eventId: string | null;
  timer: NodeJS.Timeout | null;
}

/** One provider response and the agent turn that plays it. */
export interface Response {
  id: string;
  purpose: Purpose;
  turn: AgentTurn | null;
  /** 24 kHz → sample_rate_out, made with the first audio. */
  conv: RateConverter | null;
  heard: HeardText;
  /** transcript_done's text, when it came. */
  finalText: string | null;
  /** The audio items of the response and where each starts in the turn (output samples). */
  items: { itemId: string; contentIndex: number; start: number }[];
  calls: LlmToolCall[];
  done: boolean;
  /** Cut by the caller or the end of the call: its later events are ignored. */
  cut: boolean;
  /** max_chars_per_min was reached: the rest of its audio is not played. */
  silenced: boolean;
  endCall: boolean;
  reported: boolean;
}

export interface LedgerLink {
  /** The provider session while the call runs (null before it opens and once the call stopped). */
  session(): RealtimeSession | null;
  /** A response we asked for will not come. */
  gaveUp(req: ResponseRequest): void;
}

export class ResponseLedger {
  private readonly byId = new Map<string, Response>();
  /** Responses whose audio is queued or playing, oldest first. */
  outstanding: Response[] = [];
  /** The response the provider is generating. */
  active: Response | null = null;
  /** A response.create sent whose response has not started. */
  private requested: ResponseRequest | null = null;
  private readonly queue: ResponseRequest[] = [];
  private requestSeq = 0;

  constructor(private readonly link: LedgerLink) {}

  /** Nothing is being generated, asked for, queued or played. */
  get idle(): boolean {
    return !this.active && !this.requested && !this.queue.length && !this.outstanding.length;
  }

  /** A response is running or on its way (so none of ours can start now). */
  get busy(): boolean {
    return this.active !== null || this.requested !== null || this.outstanding.length > 0;
  }

  /** The response whose audio the caller is hearing. */
  get playing(): Response | undefined {
    return this.outstanding.find((r) => r.turn && r.turn.firstFrameAt !== null && !r.turn.dropped);
  }

  get(id: string): Response | undefined {
    return this.byId.get(id);
  }

  forget(r: Response): void {
    this.byId.delete(r.id);
  }

  /** Queues a response.create, sent once no response runs. */
  ask(purpose: Purpose, instructions?: string): void {
    this.queue.push({ purpose, instructions, seq: ++this.requestSeq, eventId: null, timer: null });
    this.pump();
  }

  /** Sends the next queued request once no response is running (one at a time per conversation). */
  pump(): void {
    const session = this.link.session();
    if (!session || this.requested || this.active) return;
    const req = this.queue.shift();
    if (!req) return;
    req.eventId = session.createResponse({ instructions: req.instructions, metadata: { [META_PURPOSE]: req.purpose, [META_REQUEST]: String(req.seq) } });
    req.timer = setTimeout(() => {
      if (this.requested !== req) return;
      this.requested = null;
      this.link.gaveUp(req);
      this.pump();
    }, REQUEST_TIMEOUT_MS);
    this.requested = req;
  }

  /** Forgets queued requests of these purposes (or all). */
  dropQueued(purposes?: Purpose[]): void {
    for (let i = this.queue.length - 1; i >= 0; i--) if (!purposes || purposes.includes(this.queue[i].purpose)) this.queue.splice(i, 1);
  }

  /** A new response started (response.created, or its first event when that was missed). */
  open(id: string, metadata: Record<string, string> | null): Response {
    const asked = metadata?.[META_PURPOSE];
    const purpose: Purpose = asked && PURPOSES.has(asked) ? (asked as Purpose) : 'answer';
    const req = this.requested;
    if (req && metadata?.[META_REQUEST] === String(req.seq)) {
      if (req.timer) clearTimeout(req.timer);
      this.requested = null;
    }
    const r: Response = {
      id,
      purpose,
      turn: null,
      conv: null,
      heard: new HeardText(),
      finalText: null,
      items: [],
      calls: [],
      done: false,
      cut: false,
      silenced: false,
      endCall: false,
      reported: false,
    };
    this.byId.set(id, r);
    this.active = r;
    return r;
  }

  /** response.done: nothing more is generated for `r`. */
  done(r: Response): void {
    r.done = true;
    if (this.active === r) this.active = null;
  }

  /**
   * The provider refused the client event `clientEventId`. When it was our pending
   * response.create, that request is over: `retried` when it only raced a response the server
   * started (it goes again after that one; an answer is moot, the server's already answers).
   */
  refused(clientEventId: string | undefined, code: string | undefined): { req: ResponseRequest; retried: boolean } | null {
    const req = this.requested;
    if (req === null || clientEventId === undefined || req.eventId !== clientEventId) return null;
    if (req.timer) clearTimeout(req.timer);
    this.requested = null;
    if (code !== 'conversation_already_has_active_response') return { req, retried: false };
    if (req.purpose !== 'answer') this.queue.unshift(req);
    return { req, retried: true };
  }

  stop(): void {
    if (this.requested?.timer) clearTimeout(this.requested.timer);
  }
}
