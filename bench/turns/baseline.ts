// The named baseline: a naive energy-threshold barge-in ("naive-energy-100ms"), the kind of
// detector a voice bot gets without a VAD or echo reference: the agent is interrupted when the
// microphone's RMS level stays above a threshold for 100 ms (5 frames of 20 ms); it re-arms
// after 120 ms below the threshold. It is replayed offline on the recorded microphone frames
// (what the server received), so it costs no network or processing time.

export interface MicTrack {
  /** Send time (ms, caller process clock) of each 20 ms frame. */
  at: number[];
  /** Its RMS level, dBFS. */
  db: number[];
}

export interface BaselineResult {
  thresholdDbfs: number;
  /** Detections while the agent was audible that no caller speech explains. */
  falseDetections: number;
  /** Caller barge-ins detected: onset → the frame that completed 100 ms above threshold, ms. */
  hitLatencyMs: number[];
  missed: number;
}

export const BASELINE_NAME = 'naive-energy-100ms';
export const BASELINE_THRESHOLDS_DBFS = [-45, -40, -35, -30];
/** The threshold the summary table uses. */
export const BASELINE_MAIN_DBFS = -35;
const RUN_FRAMES = 5;
const REARM_FRAMES = 6;
/** A detection this long after an onset still belongs to that barge-in. */
const HIT_WINDOW_MS = 1500;

export function naiveBargeIns(mic: MicTrack, active: [number, number][], marks: { at: number; durMs: number }[]): BaselineResult[] {
  return BASELINE_THRESHOLDS_DBFS.map((t) => replay(mic, active, marks, t));
}

function replay(mic: MicTrack, active: [number, number][], marks: { at: number; durMs: number }[], thresholdDbfs: number): BaselineResult {
  const detections: number[] = [];
  let run = 0;
  let below = 0;
  let armed = true;
  for (let i = 0; i < mic.db.length; i++) {
    if (mic.db[i] > thresholdDbfs) {
      run++;
      below = 0;
    } else {
      run = 0;
      below++;
    }
    if (armed && run >= RUN_FRAMES) {
      detections.push(mic.at[i]);
      armed = false;
    } else if (!armed && below >= REARM_FRAMES) armed = true;
  }
  const audible = (t: number) => active.some(([a, b]) => t >= a && t <= b);
  const matched = new Set<number>();
  const hitLatencyMs: number[] = [];
  let falseDetections = 0;
  for (const t of detections) {
    const m = marks.findIndex((mk, i) => !matched.has(i) && t >= mk.at && t <= mk.at + Math.min(HIT_WINDOW_MS, mk.durMs + 200));
    if (m >= 0) {
      matched.add(m);
      hitLatencyMs.push(t - marks[m].at);
    } else if (audible(t)) falseDetections++;
  }
  return { thresholdDbfs, falseDetections, hitLatencyMs, missed: marks.length - matched.size };
}
