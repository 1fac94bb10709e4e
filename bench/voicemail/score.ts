// Runs a detector over rendered clips in 20 ms frames and scores it: a detection whose
// reported end is within 100 ms of the beep's true end is a hit (the first one only);
// every other detection is a false alarm. Latency: stream time of the frame that
// returned the hit minus the true end, i.e. how late the agent's message can start.
import type { Clip, ClipKind } from './clips.js';
import type { Rendered } from './render.js';

export interface FrameDetector { process(frame: Int16Array): { endMs: number } | null }
export interface Detection { endMs: number; atMs: number }

export const END_TOLERANCE_MS = 100;

export function detect(d: FrameDetector, r: Rendered): Detection[] {
  const frame = r.rateHz / 50;
  const out: Detection[] = [];
  for (let o = 0; o + frame <= r.pcm.length; o += frame) {
    const hit = d.process(r.pcm.subarray(o, o + frame));
    if (hit) out.push({ endMs: hit.endMs, atMs: ((o + frame) / r.rateHz) * 1000 });
  }
  return out;
}

export interface ClipResult { clip: Clip; dets: Detection[]; hit: Detection | null; falseAlarms: number; trueEndMs?: number }

export function scoreClip(clip: Clip, r: Rendered, dets: Detection[]): ClipResult {
  let hit: Detection | null = null;
  let falseAlarms = 0;
  for (const d of dets) {
    if (!hit && r.beep && Math.abs(d.endMs - r.beep.endMs) <= END_TOLERANCE_MS) hit = d;
    else falseAlarms++;
  }
  return { clip, dets, hit, falseAlarms, trueEndMs: r.beep?.endMs };
}

export interface Summary {
  positives: number;
  hits: number;
  falseAlarms: number;
  precision: number;
  recall: number;
  /** Hits that came at most 300 ms after the beep ended, over all positives. */
  recallWithin300: number;
  latencyMs: { p50: number; p95: number; max: number };
  endErrorMs: { p50: number; p95: number; max: number };
  falseAlarmsByKind: Partial<Record<ClipKind, number>>;
}

export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
}

const round1 = (x: number) => Math.round(x * 10) / 10;
const stats = (xs: number[]) => ({ p50: round1(quantile(xs, 0.5)), p95: round1(quantile(xs, 0.95)), max: round1(Math.max(...xs)) });

export function summarise(results: ClipResult[]): Summary {
  const pos = results.filter((r) => r.clip.kind === 'beep');
  const hits = pos.filter((r) => r.hit);
  const falseAlarms = results.reduce((a, r) => a + r.falseAlarms, 0);
  const lat = hits.map((r) => r.hit!.atMs - r.trueEndMs!);
  const err = hits.map((r) => Math.abs(r.hit!.endMs - r.trueEndMs!));
  const byKind: Partial<Record<ClipKind, number>> = {};
  for (const r of results) if (r.falseAlarms) byKind[r.clip.kind] = (byKind[r.clip.kind] ?? 0) + r.falseAlarms;
  return {
    positives: pos.length,
    hits: hits.length,
    falseAlarms,
    precision: hits.length + falseAlarms ? hits.length / (hits.length + falseAlarms) : 1,
    recall: pos.length ? hits.length / pos.length : NaN,
    recallWithin300: pos.length ? lat.filter((l) => l <= 300).length / pos.length : NaN,
    latencyMs: stats(lat),
    endErrorMs: stats(err),
    falseAlarmsByKind: byKind,
  };
}
