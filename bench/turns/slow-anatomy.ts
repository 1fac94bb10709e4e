// npx tsx bench/turns/slow-anatomy.ts <tapes dir> <trials.jsonl> [all] — what held each slow cut-in,
// hop by hop. The trials are tape-eval.ts's TAPE_TRIALS file of the same tapes; every trial over
// 150 ms (or missed; `all`: every trial) of the half HALF (heldout, the default, or tuning) is
// replayed with the detector's per-hop trace (trace-call.ts's, for all of them at once), and its
// first 150 ms after the onset are printed as one letter per 10 ms hop:
//   E  counted as the caller's evidence
//   v  heard, but the mic's waveform followed the reference (echo veto)
//   t  heard, but the tail of a burst (kBurstFallLog2)
//   o  heard, but under a loud onset's peak (a slam's decay)
//   b  under the noise and the echo bound by the evidence bar, the echo bound the larger
//   n  the same, the line's noise and loud moments the larger
//   L  over the noise and the echo bound, under the line's loud-moment bar
// with the first evidence hop (ms after the onset) and the run's credit 150 ms in. The totals per
// path and letter at the end say which test holds the slow cut-ins back (docs/benchmarks-turns.md,
// round 37).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HopFlags, type TracedHop } from '../../src/audio/hop-trace.js';
import { playTape } from './channel-tape.js';

interface Trial {
  load: string;
  half: string;
  path: string;
  call: string;
  session: string;
  group: string;
  level: number;
  onsetAt: number;
  ms: number | null;
}

const EVIDENCE_EXCESS = 3; // kEvidenceExcess: the energy test's bar over the noise and echo bound
const WINDOW_MS = 150;

const [dir, trialsPath, which] = process.argv.slice(2);
if (!dir || !trialsPath) throw new Error('usage: slow-anatomy.ts <tapes dir> <trials.jsonl> [all]');
const half = process.env.HALF ?? 'heldout';
const trials = readFileSync(trialsPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Trial)
  .filter((t) => t.half === half && (which === 'all' || t.ms === null || t.ms > 150));

function letter(h: TracedHop): string {
  const f = h.flags;
  const heard = f & (HopFlags.energy | HopFlags.waveform | HopFlags.bandResidual);
  if (f & HopFlags.evidence) return 'E';
  if (f & HopFlags.echoVeto) return 'v';
  if (heard && f & HopFlags.burstTail) return 't';
  if (f & HopFlags.underOnset) return 'o';
  if (h.excess < EVIDENCE_EXCESS) return h.echoBound > h.lineNoise ? 'b' : 'n';
  return 'L';
}

const bySession = new Map<string, Trial[]>();
for (const t of trials) bySession.set(t.session, [...(bySession.get(t.session) ?? []), t]);
const totals = new Map<string, number>();
const rows: string[] = [];
for (const [session, ts] of bySession) {
  // Each hop at the epoch ms it was heard: the message's time less the hops after it.
  const hops: [number, TracedHop][] = [];
  playTape(join(dir, `${session}.tape`), {}, (at, hs) => {
    const last = hs.at(-1);
    if (last) hs.forEach((h) => hops.push([at - (last.streamMs + 10 - h.streamMs), h]));
  });
  for (const t of ts) {
    const window = hops.filter(([at]) => at >= t.onsetAt - 10 && at < t.onsetAt + WINDOW_MS);
    const letters = window.map(([, h]) => letter(h)).join('');
    const first = window.find(([, h]) => h.flags & HopFlags.evidence);
    for (const c of letters) totals.set(`${t.path} ${c}`, (totals.get(`${t.path} ${c}`) ?? 0) + 1);
    rows.push([
      t.path, t.group.padEnd(6), t.load.padEnd(6), String(t.ms ?? 'miss').padStart(5), `${t.level} dBFS`.padStart(11),
      `first ${first ? Math.round(first[0] - t.onsetAt) : '-'}`.padEnd(9), `credit ${Math.round(window.at(-1)?.[1].creditMs ?? 0)}`.padEnd(10),
      letters.padEnd(16), t.call,
    ].join(' '));
  }
}
console.log(rows.sort().join('\n'));
console.log([...totals].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}: ${n}`).join('\n'));
