import type { RealtimeEvent, RealtimeSession } from '../providers/types.js';
import { AgentTurn, type TurnKind } from './agent-audio.js';
import type { CallShell } from './call-shell.js';
import type { Purpose, Response, ResponseLedger } from './realtime-ledger.js';
import { REALTIME_RATE_HZ } from './realtime-mic.js';
import { RateConverter } from './speaker.js';

// What the caller hears of the realtime responses: each response's 24 kHz audio resampled
// into the agent's audio as a turn of its own; and when responses are cut (barge-in, the end
// of the call, max_chars_per_min), what of them played: the heard words for the transcript,
// and conversation.item.truncate so the model remembers only that.

const TURN_KIND: Record<Purpose, TurnKind> = { greeting: 'greeting', answer: 'answer', filler: 'filler', reminder: 'reminder', goodbye: 'goodbye' };

export class ResponsePlayback {
  constructor(
    private readonly shell: CallShell,
    private readonly ledger: ResponseLedger,
    private readonly session: () => RealtimeSession | null,
  ) {}

  /** `r`'s first audio: it gets its turn and is outstanding until that turn is sent. */
  startTurn(r: Response): void {
    r.turn = new AgentTurn(TURN_KIND[r.purpose]);
    this.ledger.outstanding.push(r);
  }

  /** Appends a piece of `r`'s audio (its turn started) and remembers where each item begins. */
  play(r: Response, ev: Extract<RealtimeEvent, { type: 'audio' }>): void {
    const last = r.items[r.items.length - 1];
    if (!last || last.itemId !== ev.itemId || last.contentIndex !== ev.contentIndex) r.items.push({ itemId: ev.itemId, contentIndex: ev.contentIndex, start: r.heard.queuedSamples });
    r.conv ??= new RateConverter(REALTIME_RATE_HZ, this.shell.audio.sampleRateHz);
    const out = r.conv.convert(ev.pcm);
    if (out.length === 0) return;
    r.heard.addAudio(out.length);
    this.shell.audio.append(r.turn!, out.slice());
    this.shell.kick();
  }

  /** No more audio comes for `r`: its turn finishes. */
  end(r: Response): void {
    // The resampler keeps a few samples of its filter: push them out with a little silence.
    const tail = r.conv!.convert(new Int16Array(REALTIME_RATE_HZ / 100));
    if (tail.length && !r.silenced) {
      r.heard.addAudio(tail.length);
      this.shell.audio.append(r.turn!, tail.slice());
    }
    this.shell.audio.finish(r.turn!);
    this.shell.kick();
  }

  /** What `r` said, heard by the caller: a transcript entry and frame, once. */
  record(r: Response, text: string, interrupted = false): void {
    if (r.reported || !text) return;
    r.reported = true;
    this.shell.agentSaid(r.turn?.firstFrameAt ?? null, text, interrupted);
  }

  /**
   * Stops every response queued or playing (and the one being generated): their audio is
   * dropped, the provider cancels and truncates each item at what was played, and the
   * transcript keeps the heard words. `interrupted` (a barge-in) also tells the client.
   */
  cut(interrupted: boolean): void {
    const lead = this.shell.line.leadSamples();
    let heardNow = '';
    const active = this.ledger.active;
    if (active && !active.done) {
      active.cut = true;
      this.session()?.cancel();
    }
    for (const r of this.ledger.outstanding) {
      const turn = r.turn!;
      const played = turn.firstFrameAt === null ? 0 : Math.max(0, Math.min(turn.sent, r.heard.queuedSamples) - lead);
      const heard = r.heard.heardAt(played);
      if (turn.firstFrameAt !== null && !turn.dropped) heardNow = heard;
      r.cut = true;
      this.truncate(r, played);
      if (heard) this.record(r, heard, interrupted);
      r.reported = true;
      if (r.done) this.ledger.forget(r);
    }
    if (interrupted) this.shell.send({ type: 'interrupted', heard: heardNow });
    this.ledger.outstanding = [];
    this.shell.audio.dropAll();
    this.shell.clearPlayback();
  }

  /** max_chars_per_min reached during `r`: the rest of it is not spoken. */
  silence(r: Response): void {
    r.silenced = true;
    this.shell.overBudget(true);
    if (this.ledger.active === r) this.session()?.cancel();
    // The model remembers only what will be played.
    this.truncate(r, r.heard.queuedSamples);
  }

  /** The call stopped: what the caller heard of the responses playing goes to the transcript. */
  hangUp(): void {
    const lead = this.shell.line.leadSamples();
    for (const r of this.ledger.outstanding) {
      if (r.turn && r.turn.sent > 0 && !r.reported) this.record(r, r.heard.heardAt(Math.max(0, r.turn.sent - lead)));
    }
    this.ledger.outstanding = [];
  }

  /** conversation.item.truncate for each audio item of `r`, at the milliseconds of it that played. */
  private truncate(r: Response, playedSamples: number): void {
    const session = this.session();
    if (!session) return;
    const rate = this.shell.audio.sampleRateHz;
    for (let i = 0; i < r.items.length; i++) {
      const it = r.items[i];
      const end = r.items[i + 1]?.start ?? r.heard.queuedSamples;
      const inItem = Math.max(0, Math.min(playedSamples, end) - it.start);
      session.truncate(it.itemId, it.contentIndex, Math.floor((inItem * 1000) / rate));
    }
  }
}
