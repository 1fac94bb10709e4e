import { Counter, Gauge } from 'prom-client';
import { FastHistogram } from './fast-histogram.js';
import { registry } from './registry.js';

// The media role's calls. Per-frame counts are not incremented per frame: each session keeps
// its own plain counters (framesIn, framesOut, droppedFrames) and the scrape adds them up over
// the live calls plus the totals of the calls that ended (collect callbacks below).

/** What the metrics read of one live call. */
export interface CallStats {
  readonly direction: string;
  readonly framesIn: number;
  readonly framesOut: number;
  readonly droppedFrames: number;
}

/** The live calls of each media server in this process (a test process may run several). */
const sources = new Set<() => Iterable<CallStats>>();

/** Directions are the voice_sessions check's values; anything else would be a bug, counted as `other`. */
const DIRECTIONS = ['web', 'inbound', 'outbound'] as const;
const directionOf = (d: string) => ((DIRECTIONS as readonly string[]).includes(d) ? d : 'other');

/** Totals of calls that ended, by direction. */
const ended = new Map<string, { framesIn: number; framesOut: number; droppedFrames: number }>();

interface Totals {
  live: number;
  framesIn: number;
  framesOut: number;
  droppedFrames: number;
}

function totals(): Map<string, Totals> {
  const out = new Map<string, Totals>();
  for (const d of DIRECTIONS) out.set(d, { live: 0, framesIn: 0, framesOut: 0, droppedFrames: 0 });
  for (const [d, e] of ended) {
    const t = out.get(d) ?? { live: 0, framesIn: 0, framesOut: 0, droppedFrames: 0 };
    t.framesIn += e.framesIn;
    t.framesOut += e.framesOut;
    t.droppedFrames += e.droppedFrames;
    out.set(d, t);
  }
  for (const live of sources) {
    for (const s of live()) {
      const d = directionOf(s.direction);
      const t = out.get(d) ?? { live: 0, framesIn: 0, framesOut: 0, droppedFrames: 0 };
      t.live++;
      t.framesIn += s.framesIn;
      t.framesOut += s.framesOut;
      t.droppedFrames += s.droppedFrames;
      out.set(d, t);
    }
  }
  return out;
}

const perDirection = (name: string, help: string, pick: (t: Totals) => number) =>
  new Counter({
    name,
    help,
    labelNames: ['direction'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [direction, t] of totals()) this.inc({ direction }, pick(t));
    },
  });

new Gauge({
  name: 'voice_media_active_sessions',
  help: 'Calls running on this media node, by direction (web, inbound, outbound)',
  labelNames: ['direction'],
  registers: [registry],
  collect() {
    this.reset();
    for (const [direction, t] of totals()) this.set({ direction }, t.live);
  },
});
perDirection('voice_media_frames_in_total', '20 ms frames of caller audio taken in, by direction', (t) => t.framesIn);
perDirection('voice_media_frames_out_total', '20 ms frames of output audio sent, by direction', (t) => t.framesOut);
perDirection('voice_media_dropped_frames_total', 'Output frames dropped because the client did not read them (backpressure), by direction', (t) => t.droppedFrames);

const callsStarted = new Counter({ name: 'voice_media_calls_started_total', help: 'Calls whose media socket opened, by direction', labelNames: ['direction'], registers: [registry] });
const callsEnded = new Counter({
  name: 'voice_media_calls_ended_total',
  help: 'Calls that ended on this node, by direction and end_reason',
  labelNames: ['direction', 'end_reason'],
  registers: [registry],
});
const bargeIns = new Counter({ name: 'voice_media_barge_ins_total', help: 'Times a caller spoke over the agent (an `interrupted` frame), by direction', labelNames: ['direction'], registers: [registry] });
const falseInterruptions = new Counter({
  name: 'voice_media_false_interruptions_total',
  help: 'Barge-ins judged a backchannel afterwards: the agent resumed its turn',
  registers: [registry],
});
const callDuration = new Counter({ name: 'voice_media_call_seconds_total', help: 'Seconds of calls that ended, by direction', labelNames: ['direction'], registers: [registry] });

/**
 * |interval − 20 ms| between consecutive output frames of a call (the jitter the media
 * benchmark's client measures at arrival), observed as frames leave; the first frame after a
 * pause of over 200 ms (between agent turns) is not counted.
 */
export const outputJitter = new FastHistogram('voice_media_output_jitter_seconds', 'Output jitter: |interval − 20 ms| between consecutive output frames of a call, as sent', [
  1, 2, 5, 10, 20, 40, 80, 160,
]);

/** How late each run of the pacer came after the tick it was due at (timer or caller message). */
export const pacerLateness = new FastHistogram('voice_media_pacer_lateness_seconds', 'How late each pacer run came after the tick it was due at', [1, 2, 5, 10, 20, 50, 100, 250, 1000]);

/** A jitter sample is only taken when the previous frame left less than this long before. */
export const JITTER_PAUSE_MS = 200;

/** A media server's live calls, read at every scrape; returns the function that stops reading them. */
export function trackCalls(live: () => Iterable<CallStats>): () => void {
  sources.add(live);
  return () => sources.delete(live);
}

export function callStarted(direction: string): void {
  callsStarted.inc({ direction: directionOf(direction) });
}

/** The call left the live set: its counters move to the totals (in the same turn, so no scrape sees a dip). */
export function callEnded(call: CallStats, endReason: string, seconds: number): void {
  const direction = directionOf(call.direction);
  const e = ended.get(direction) ?? { framesIn: 0, framesOut: 0, droppedFrames: 0 };
  e.framesIn += call.framesIn;
  e.framesOut += call.framesOut;
  e.droppedFrames += call.droppedFrames;
  ended.set(direction, e);
  callsEnded.inc({ direction, end_reason: endReason });
  callDuration.inc({ direction }, seconds);
}

export function countBargeIn(direction: string): void {
  bargeIns.inc({ direction: directionOf(direction) });
}

/** The conversation judged a barge-in a backchannel and resumed the agent's turn. */
export function countFalseInterruption(): void {
  falseInterruptions.inc();
}
