// npx tsx bench/turns/tape-eval.ts <tapes dir> <dump.json> — the barge-in detector scored on the
// taped live calls of a `bench:turns` run (BENCH_TAPES=dir BENCH_EVAL_DUMP=dump.json): each call's
// tape is played through a fresh channel (channel-tape.ts) and its interruptions are scored against
// what the caller said in that run. With the build and options of the run it reproduces the live
// detector (the check line); with another build (run it from that checkout) or TAPE_BARGE_IN
// (JSON BargeInOptions overrides, e.g. '{"echoCancellerMs":32}') it tells what that would have done
// on the same calls. Until the first interruption that differs from the live one the input is
// exactly what the changed detector would have heard; after it, the agent in the tape stops
// when it stopped live. TAPE_ONLY (a regular expression on call ids) and TAPE_LOADS
// (quiet,cpu,stalls) pick calls; TAPE_VERBOSE=1 lists each call's trial latencies and false interruptions; TAPE_TRIALS=file
// writes every trial as a JSON line (call, line, caller level and voice, onset class, text, the
// agent turn cut into, agent speech heard before it, latency; null = missed), for comparing two
// builds trial by trial.
//
// Scored as eval-summary.ts does, on the detector alone: a trial (a cut-in in the first 300 ms of
// an agent utterance) is hit by the first interruption from its start to 3 s after its onset (or
// the caller's next words), latency from the onset; an interruption while the agent speaks and
// the caller has been silent for 500 ms is false, per 10 minutes of such agent speech. Rows
// starting with `all` sum the loads (quiet, cpu, stalls) a run taped.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EvalCall } from './eval-set.js';
import { lineGroup, lineName } from './eval-set.js';
import { callerSilentRuns, type EvalPhase } from './eval-summary.js';
import { playTape } from './channel-tape.js';

const HIT_WINDOW_MS = 3000;
const [dir, dumpPath] = process.argv.slice(2);
if (!dir || !dumpPath) throw new Error('usage: tape-eval.ts <tapes dir> <dump.json>');
const phases = JSON.parse(readFileSync(dumpPath, 'utf8')) as EvalPhase[];
const overrides = process.env.TAPE_BARGE_IN ? JSON.parse(process.env.TAPE_BARGE_IN) : {};
const verbose = process.env.TAPE_VERBOSE === '1';
const only = process.env.TAPE_ONLY ? new RegExp(process.env.TAPE_ONLY) : null;
const loads = process.env.TAPE_LOADS ? process.env.TAPE_LOADS.split(',') : null;

interface Tally { latencies: number[]; quietMs: number; falses: number }
const tallies = new Map<string, Tally>();
const tally = (key: string) => tallies.get(key) ?? (tallies.set(key, { latencies: [], quietMs: 0, falses: 0 }), tallies.get(key)!);
let liveEvents = 0;
let reproduced = 0;
let missingTapes = 0;
const trialsOut = process.env.TAPE_TRIALS;
const trialLines: string[] = [];

for (const phase of phases) {
  if (loads && !loads.includes(phase.load)) continue;
  const calls = new Map<string, EvalCall>(phase.calls.map((c) => [c.id, c]));
  for (const r of phase.results) {
    const path = join(dir, `${r.sessionId}.tape`);
    const call = calls.get(r.id);
    if (only && !only.test(r.id)) continue;
    if (!call || !existsSync(path)) { missingTapes++; continue; }
    const play = playTape(path, overrides);
    const live = phase.server.log.events.filter(([sid, , ev]) => sid === r.sessionId && ev & 4).map(([, t]) => t);
    liveEvents += live.length;
    reproduced += live.filter((t) => play.interruptions.some((f) => Math.abs(f - t) < 1)).length;

    const said = r.said.filter((s) => s.startAt > 0);
    const turns = phase.server.log.turns.filter(([sid]) => sid === r.sessionId);
    const heardBefore = (t: number) => callerSilentRuns(r.runs, said).reduce((n, [a, b]) => n + Math.max(0, Math.min(b, t) - a), 0);
    // Each trial and false interruption counts in its load's rows and in the rows over all loads.
    const groups = [phase.load, 'all'].map((load) => `${load} ${call.half} ${call.path}`);
    const keys = [...groups, ...groups.map((g) => `${g} ${lineGroup(call.line)}`)];
    const count = (add: (t: Tally) => void) => keys.forEach((k) => add(tally(k)));
    const fires = play.interruptions;
    const used = new Set<number>();
    const row: string[] = [];
    for (const s of said.filter((x) => x.kind === 'barge')) {
      const onset = s.onsetAt || s.startAt;
      const next = said.find((x) => x.startAt > s.startAt);
      const end = Math.min(onset + HIT_WINDOW_MS, next ? next.startAt : Infinity);
      const hit = fires.findIndex((t, j) => !used.has(j) && t >= s.startAt - 20 && t <= end);
      if (hit >= 0) used.add(hit);
      if ((s.window ?? 'first300') !== 'first300') continue;
      const ms = hit >= 0 ? fires[hit] - onset : Infinity;
      count((t) => t.latencies.push(ms));
      row.push(Number.isFinite(ms) ? String(Math.round(ms)) : 'miss');
      if (trialsOut) {
        const utteranceAt = s.utteranceAt ?? s.startAt;
        const kind = turns.filter(([, t]) => t <= utteranceAt + 30 && t >= utteranceAt - 1500).at(-1)?.[2] ?? 'unknown';
        trialLines.push(JSON.stringify({
          load: phase.load, half: call.half, path: call.path, call: r.id, session: r.sessionId, group: lineGroup(call.line), line: lineName(call.line),
          level: call.caller.levelDbfs, voice: call.caller.voice, onsetClass: s.onsetClass, text: s.text, kind,
          offsetMs: Math.round(s.startAt - utteranceAt), heardMs: Math.round(heardBefore(onset)), onsetAt: onset,
          ms: Number.isFinite(ms) ? Math.round(ms) : null,
        }));
      }
    }
    const speaking = (t: number, pad: number) => said.some((s) => t >= s.startAt && t <= (s.doneAt || s.startAt + 5000) + pad);
    for (const [j, t] of fires.entries()) {
      if (used.has(j) || speaking(t, 500)) continue;
      if (!r.runs.some(([a, b]) => t >= a && t <= b + 300)) continue;
      count((t) => t.falses++);
      if (verbose) console.log(`${phase.load} ${r.id} ${lineGroup(call.line)}: false interruption at ${Math.round(t - (r.runs[0]?.[0] ?? 0))} ms`);
    }
    const ms = callerSilentRuns(r.runs, said).reduce((n, [x, y]) => n + (y - x), 0);
    count((t) => (t.quietMs += ms));
    if (verbose) console.log(`${r.id} ${lineGroup(call.line)}: ${row.join(' ')}`);
  }
}

if (trialsOut) writeFileSync(trialsOut, trialLines.map((l) => `${l}\n`).join(''));
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] : NaN;
};
const ms = (v: number) => (Number.isNaN(v) ? '-' : Number.isFinite(v) ? String(Math.round(v)) : 'miss');
console.log(`tapes: ${liveEvents ? `${reproduced} of ${liveEvents} live detector interruptions at the same frame` : 'no live detector interruptions'}${missingTapes ? `; ${missingTapes} calls without a tape` : ''}${Object.keys(overrides).length ? `; overrides ${JSON.stringify(overrides)}` : ''}`);
console.log('group                                   trials  miss   p50   p90   p95    max  >150  >400  false/10min (n, agent min)');
for (const [key, t] of [...tallies].sort(([a], [b]) => a.localeCompare(b))) {
  const l = t.latencies;
  const per10 = t.quietMs ? (t.falses / t.quietMs) * 600000 : 0;
  console.log(
    `${key.padEnd(38)} ${String(l.length).padStart(6)} ${String(l.filter((x) => !Number.isFinite(x)).length).padStart(5)} ${ms(pct(l, 50)).padStart(5)} ${ms(pct(l, 90)).padStart(5)} ${ms(pct(l, 95)).padStart(5)} ${ms(l.length ? Math.max(...l) : NaN).padStart(6)} ${String(l.filter((x) => x > 150).length).padStart(5)} ${String(l.filter((x) => x > 400).length).padStart(5)}  ${per10.toFixed(1).padStart(5)} (${t.falses}, ${(t.quietMs / 60000).toFixed(1)})`,
  );
}
