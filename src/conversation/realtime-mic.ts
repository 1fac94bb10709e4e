import type { RealtimeSession } from '../providers/types.js';
import { PICKUP_JUDGED_WITHIN_MS } from './pickup.js';
import { Preroll } from './preroll.js';
import { RateConverter } from './speaker.js';

// The caller's microphone as the realtime provider hears it: up to 24 kHz, held in a backlog
// while the session connects, and withheld (silence in its place, the stream keeps its clock)
// while only the agent's echo may be in it, with the last stretch kept as the preroll.

/** Caller audio sent on barge-in from what was kept while the microphone was withheld. */
const PREROLL_MS = 400;
/** A barge-in decided only after a pickup word's judgement (pickup.ts) sends its whole speech. */
const PICKUP_PREROLL_MS = PREROLL_MS + PICKUP_JUDGED_WITHIN_MS;
/** Caller audio kept while the session connects (sent once it is open). */
const BACKLOG_MS = 3000;
export const REALTIME_RATE_HZ = 24000;

export class RealtimeMic {
  private readonly toProvider: RateConverter;
  private readonly preroll: Preroll;
  /** Caller audio at 24 kHz waiting for the session to open. */
  private readonly backlog: Int16Array[] = [];
  private backlogSamples = 0;
  private session: RealtimeSession | null = null;
  /** Silence has been going up in place of the microphone. */
  private withheld = false;

  constructor(procRateHz: number) {
    this.toProvider = new RateConverter(procRateHz, REALTIME_RATE_HZ);
    this.preroll = new Preroll(procRateHz, PICKUP_PREROLL_MS);
  }

  /** The session is open: what the caller said meanwhile goes up first. */
  attach(session: RealtimeSession): void {
    this.session = session;
    for (const b of this.backlog) session.appendAudio(b);
    this.backlog.length = 0;
    this.backlogSamples = 0;
  }

  /** The microphone goes up; after a withheld stretch its preroll goes first when `callerSpeaking`. */
  listen(pcm: Int16Array, callerSpeaking: boolean): void {
    if (this.withheld) {
      this.withheld = false;
      if (callerSpeaking) this.preroll.flush(this.send, PREROLL_MS);
      else this.preroll.clear();
    }
    this.send(pcm);
  }

  /** Silence goes up in place of `pcm`, which is kept in the preroll. */
  withhold(pcm: Int16Array): void {
    this.withheld = true;
    this.preroll.keep(pcm);
    this.send(new Int16Array(pcm.length));
  }

  /** Barge-in: the provider hears the microphone again, starting with the preroll (longer `afterPickup`). */
  release(afterPickup = false): void {
    this.withheld = false;
    this.preroll.flush(this.send, afterPickup ? PICKUP_PREROLL_MS : PREROLL_MS);
  }

  /** Caller audio (processing rate) up to the provider at 24 kHz. */
  private readonly send = (pcm: Int16Array): void => {
    const up = this.toProvider.convert(pcm);
    if (up.length === 0) return;
    if (this.session) {
      this.session.appendAudio(up);
      return;
    }
    this.backlog.push(up.slice());
    this.backlogSamples += up.length;
    const max = (REALTIME_RATE_HZ * BACKLOG_MS) / 1000;
    while (this.backlog.length > 1 && this.backlogSamples > max) this.backlogSamples -= this.backlog.shift()!.length;
  };
}
