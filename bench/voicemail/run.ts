// npm run bench:voicemail: the native answering-machine beep detector against a naive
// Goertzel-threshold baseline on generated, labelled clips (clips.ts), per corpus half
// (tune / held-out) and audio path (16 kHz, 8 kHz, 8 kHz through μ-law): precision,
// recall, beep end -> detection latency, end-time error, false alarms per distractor
// kind, and the CPU per 20 ms frame. Targets: precision and recall >= 0.98, detection
// <= 300 ms after the beep ends. --quick: a quarter of the clips; --verbose: list the
// misses and false alarms. Writes bench/results/voicemail.json on a full run.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { BeepDetector } from '../../src/audio/beep-detector.js';
import { GoertzelThresholdBaseline } from './baseline.js';
import { makeClips, type Half } from './clips.js';
import { PATHS, pathRate, render, type AudioPath, type Rendered } from './render.js';
import { detect, scoreClip, summarise, type ClipResult, type FrameDetector, type Summary } from './score.js';

const quick = process.argv.includes('--quick');
const verbose = process.argv.includes('--verbose');
const halves = (process.argv.find((a) => a.startsWith('--half='))?.slice(7).split(',') ?? ['tune', 'heldout']) as Half[];

const DETECTORS: Record<string, (rateHz: number) => FrameDetector> = {
  native: (rateHz) => new BeepDetector({ sampleRateHz: rateHz }),
  'goertzel-threshold (baseline)': (rateHz) => new GoertzelThresholdBaseline(rateHz),
};

interface Row { half: Half; path: AudioPath | 'all'; detector: string; summary: Summary }
const rows: Row[] = [];
const cost: Record<string, Record<number, number>> = {};

/** ns per 20 ms frame over all frames of the clips (best of 3 passes). */
function frameCost(make: (rateHz: number) => FrameDetector, clips: Rendered[]): number {
  let best = Infinity;
  for (let pass = 0; pass < 3; pass++) {
    let ns = 0n, frames = 0;
    for (const r of clips) {
      const d = make(r.rateHz), n = r.rateHz / 50;
      const t0 = process.hrtime.bigint();
      for (let o = 0; o + n <= r.pcm.length; o += n) d.process(r.pcm.subarray(o, o + n));
      ns += process.hrtime.bigint() - t0;
      frames += Math.floor(r.pcm.length / n);
    }
    best = Math.min(best, Number(ns) / frames);
  }
  return best;
}

const pct = (x: number) => (x * 100).toFixed(1).padStart(6);
function print(r: Row): void {
  const s = r.summary;
  const fa = Object.entries(s.falseAlarmsByKind).map(([k, v]) => `${k}:${v}`).join(' ') || '-';
  console.log(`${r.half.padEnd(8)} ${r.path.padEnd(9)} ${r.detector.padEnd(30)} ${pct(s.precision)} ${pct(s.recall)} ${pct(s.recallWithin300)}` +
    `  ${String(s.latencyMs.p50).padStart(6)} ${String(s.latencyMs.p95).padStart(6)} ${String(s.latencyMs.max).padStart(7)}` +
    `  ${String(s.endErrorMs.p50).padStart(5)} ${String(s.endErrorMs.p95).padStart(5)}  ${s.hits}/${s.positives} FA ${s.falseAlarms} (${fa})`);
}

console.log(`beep detector benchmark${quick ? ' (--quick)' : ''}; ${cpus()[0]?.model ?? 'cpu'}`);
console.log('half     path      detector                        prec%  rec% rec<=300ms  lat p50    p95     max  endErr p50 p95  hits');
for (const half of halves) {
  let clips = makeClips(half);
  if (quick) clips = clips.filter((_, i) => i % 4 === 0);
  const all: Record<string, ClipResult[]> = {};
  for (const path of PATHS) {
    const rendered = clips.map((c) => render(c, path));
    for (const [name, make] of Object.entries(DETECTORS)) {
      const results = clips.map((c, i) => scoreClip(c, rendered[i], detect(make(pathRate(path)), rendered[i])));
      (all[name] ??= []).push(...results);
      const row: Row = { half, path, detector: name, summary: summarise(results) };
      rows.push(row);
      print(row);
      if (verbose && name === 'native') {
        for (const r of results) {
          if (r.clip.kind === 'beep' && !r.hit) console.log(`    miss ${r.clip.id} ${JSON.stringify(r.clip.beep)} dets ${JSON.stringify(r.dets)} true end ${r.trueEndMs}`);
          if (r.falseAlarms) console.log(`    false alarm ${r.clip.id} ${JSON.stringify(r.dets)}`);
        }
      }
      if (half === halves[halves.length - 1] && path !== '8k-mulaw') {
        (cost[name] ??= {})[pathRate(path)] = frameCost(make, rendered.slice(0, quick ? 40 : 120));
      }
    }
  }
  for (const [name, results] of Object.entries(all)) {
    const row: Row = { half, path: 'all', detector: name, summary: summarise(results) };
    rows.push(row);
    print(row);
  }
}
console.log('\nCPU per 20 ms frame (ns, best of 3 passes, through the JS wrapper; the baseline is TypeScript):');
for (const [name, byRate] of Object.entries(cost)) {
  console.log(`  ${name.padEnd(30)} ${Object.entries(byRate).map(([r, ns]) => `${r} Hz: ${Math.round(ns)} ns`).join('   ')}`);
}
const held = rows.find((r) => r.half === 'heldout' && r.path === 'all' && r.detector === 'native')?.summary;
if (held) {
  const ok = held.precision >= 0.98 && held.recall >= 0.98 && held.latencyMs.max <= 300;
  console.log(`\nheld-out, all paths, native: precision ${held.precision.toFixed(3)} recall ${held.recall.toFixed(3)} ` +
    `latency p50/p95/max ${held.latencyMs.p50}/${held.latencyMs.p95}/${held.latencyMs.max} ms -> targets ${ok ? 'met' : 'NOT met'}`);
}
if (!quick && halves.length === 2) {
  mkdirSync('bench/results', { recursive: true });
  writeFileSync('bench/results/voicemail.json', `${JSON.stringify({ date: new Date().toISOString(), rows, nsPerFrame: cost }, null, 2)}\n`);
}
