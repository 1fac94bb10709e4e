// npx tsx bench/turns/trace-call.ts <tapes dir> <dump.json> <load> <call id> [fromMs-toMs] — one taped
// call of a `bench:turns` run (BENCH_TAPES, BENCH_EVAL_DUMP) replayed through a fresh channel with
// the barge-in detector's per-hop trace (src/audio/hop-trace.ts): what the caller said and when
// (ms since the call's first caller message), the interruptions, and every hop in the window with
// the figures it was judged on. TAPE_BARGE_IN overrides options as in tape-eval.ts. Why a cut-in
// was slow, hop by hop: which test held it (the noise, the echo bound, the line's loud moments).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HopFlags, type TracedHop } from '../../src/audio/hop-trace.js';
import { playTape } from './channel-tape.js';
import type { EvalPhase } from './eval-summary.js';
import { lineName } from './eval-set.js';

const [dir, dumpPath, load, id, window] = process.argv.slice(2);
if (!dir || !dumpPath || !load || !id) throw new Error('usage: trace-call.ts <tapes dir> <dump.json> <load> <call id> [fromMs-toMs]');
const [fromMs, toMs] = window ? window.split('-').map(Number) : [0, Infinity];
const phase = (JSON.parse(readFileSync(dumpPath, 'utf8')) as EvalPhase[]).find((p) => p.load === load);
const result = phase?.results.find((r) => r.id === id);
const call = phase?.calls.find((c) => c.id === id);
if (!phase || !result || !call) throw new Error(`no call ${id} in the ${load} phase of ${dumpPath}`);

const overrides = process.env.TAPE_BARGE_IN ? JSON.parse(process.env.TAPE_BARGE_IN) : {};
const rows: [number, TracedHop][] = [];
const play = playTape(join(dir, `${result.sessionId}.tape`), overrides, (at, hops) => hops.forEach((h) => rows.push([at, h])));
const t0 = play.from;
const rel = (t: number) => Math.round(t - t0);
const flagNames = (f: number) => Object.entries(HopFlags).filter(([, bit]) => f & bit).map(([name]) => name).join(',') || '-';
const g = (x: number) => x.toPrecision(3);

console.log(`${id} (${load}): ${lineName(call.line)}, caller ${call.caller.levelDbfs} dBFS (${call.caller.voice})`);
for (const s of result.said) {
  if (s.startAt <= 0) continue;
  console.log(`said ${rel(s.onsetAt || s.startAt)} ms: ${s.kind}${s.window ? ` (${s.window})` : ''} "${s.text}"`);
}
console.log(`interruptions at ${play.interruptions.map(rel).join(', ') || 'none'} ms`);
console.log('message ms  stream ms      p    llr  excess     heard  noise+bar      bound delay  credit  flags');
for (const [at, h] of rows) {
  const ms = rel(at);
  if (ms < fromMs || ms > toMs) continue;
  console.log(
    `${String(ms).padStart(10)} ${String(h.streamMs).padStart(10)} ${h.callerProbability.toFixed(2).padStart(6)} ${h.likelihood.toFixed(2).padStart(6)} ${h.excess.toFixed(2).padStart(7)} ${g(h.heard).padStart(9)} ${g(h.lineNoise).padStart(10)} ${g(h.echoBound).padStart(10)} ${String(h.delayHops).padStart(5)} ${h.creditMs.toFixed(0).padStart(7)}  ${flagNames(h.flags)}`,
  );
}
