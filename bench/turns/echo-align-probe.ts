// npx tsx bench/turns/echo-align-probe.ts <tapes dir> <dump.json> — where each agent utterance's
// echo lands against the reference, on the taped echo calls of a `bench:turns` run (BENCH_TAPES,
// BENCH_EVAL_DUMP; see tape-eval.ts). The tape is replayed through a channel built with its
// options, and the reference is paired with the mic as the channel pairs them (a FIFO taken in
// step with the mic frames, silence when empty). At the start of every utterance (reference after
// 300 ms of silence) the lag in samples at which the mic's next 300 ms follow the reference's most
// closely is found (normalised cross-correlation; the first over 0-500 ms, then within 80 ms of
// the last one; under 0.6 it is not counted: the caller spoke, or a non-linear path). Prints each
// call's lags and, for fixed and drifting paths apart, how far consecutive utterances' lags moved.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MediaChannel, Resampler, type MediaChannelOptions } from '../../src/audio/native.js';
import type { EvalCall } from './eval-set.js';
import type { EvalPhase } from './eval-summary.js';

const RECORD_HEAD = 13; // channel-tape.ts: kind u8, epoch ms f64, byte length u32
const REF = 0;
const WINDOW_S = 0.3;
const MAX_LAG_S = 0.5;
const FOLLOW_S = 0.08;
const MIN_CORR = 0.6;
const QUIET_DBFS = -55;
const PAUSE_HOPS = 30;

/** Mic at the processing rate and the reference as the channel paired it, resampled to that rate. */
function paired(path: string): { mic: Float32Array; ref: Float32Array; rateHz: number } {
  const buf = readFileSync(path);
  const headLen = buf.readUInt32LE(0);
  const { options } = JSON.parse(buf.subarray(4, 4 + headLen).toString()) as { options: MediaChannelOptions };
  const channel = new MediaChannel(options);
  const fs = channel.frameSamples;
  const rateHz = options.procRateHz!;
  const refRateHz = options.refRateHz!;
  const rfs = (refRateHz * (options.frameMs ?? 20)) / 1000;
  const fifo: number[] = [];
  let head = 0;
  const mic: number[] = [];
  const ref: number[] = [];
  for (let o = 4 + headLen; o + RECORD_HEAD <= buf.length; ) {
    const kind = buf.readUInt8(o);
    const n = buf.readUInt32LE(o + 9);
    const body = buf.subarray(o + RECORD_HEAD, o + RECORD_HEAD + n);
    o += RECORD_HEAD + n;
    if (body.length < n) break;
    const bytes = new Uint8Array(n);
    bytes.set(body);
    if (kind === REF) {
      for (const v of new Int16Array(bytes.buffer, 0, n >> 1)) fifo.push(v);
      continue;
    }
    const frames = channel.process(bytes);
    for (let f = 0; f < frames; f++) {
      for (let i = 0; i < fs; i++) mic.push(channel.output[f * fs + i]);
      const take = Math.min(rfs, fifo.length - head);
      for (let i = 0; i < rfs; i++) ref.push(i < take ? fifo[head + i] : 0);
      head += take;
    }
    if (head > 1 << 20) { fifo.splice(0, head); head = 0; }
  }
  if (refRateHz === rateHz) return { mic: Float32Array.from(mic), ref: Float32Array.from(ref), rateHz };
  const rs = new Resampler({ inRateHz: refRateHz, outRateHz: rateHz, maxInputSamples: rfs });
  const out: number[] = [];
  for (let i = 0; i + rfs <= ref.length; i += rfs) {
    const k = rs.process(Int16Array.from(ref.slice(i, i + rfs)));
    for (let j = 0; j < k; j++) out.push(rs.output[j]);
  }
  return { mic: Float32Array.from(mic), ref: Float32Array.from(out), rateHz };
}

/** Sample offsets where the reference starts again after PAUSE_HOPS quiet 10 ms hops. */
function utteranceStarts(ref: Float32Array, rateHz: number): number[] {
  const hop = rateHz / 100;
  const quietRms = 32768 * 10 ** (QUIET_DBFS / 20);
  const starts: number[] = [];
  let quiet = PAUSE_HOPS;
  for (let b = 0; (b + 1) * hop <= ref.length; b++) {
    let e = 0;
    for (let i = 0; i < hop; i++) e += ref[b * hop + i] ** 2;
    const loud = Math.sqrt(e / hop) > quietRms;
    if (loud && quiet >= PAUSE_HOPS) starts.push(b * hop);
    quiet = loud ? 0 : quiet + 1;
  }
  return starts;
}

/** The lag (samples) in [lo, hi] where mic follows the reference from `at`, and how closely. */
function bestLag(mic: Float32Array, ref: Float32Array, at: number, w: number, lo: number, hi: number): { lag: number; corr: number } {
  let rr = 0;
  for (let i = 0; i < w; i++) rr += ref[at + i] ** 2;
  let best = { lag: -1, corr: -1 };
  for (let lag = lo; lag <= hi; lag++) {
    let xy = 0;
    let yy = 0;
    for (let i = 0; i < w; i++) {
      const y = mic[at + lag + i];
      xy += ref[at + i] * y;
      yy += y * y;
    }
    const corr = xy / Math.sqrt(rr * yy + 1e-9);
    if (corr > best.corr) best = { lag, corr };
  }
  return best;
}

const [dir, dumpPath] = process.argv.slice(2);
if (!dir || !dumpPath) throw new Error('usage: echo-align-probe.ts <tapes dir> <dump.json>');
const phases = JSON.parse(readFileSync(dumpPath, 'utf8')) as EvalPhase[];
const moves = { fixed: new Map<number, number>(), drifting: new Map<number, number>() };
for (const phase of phases) {
  const calls = new Map<string, EvalCall>(phase.calls.map((c) => [c.id, c]));
  for (const r of phase.results) {
    const call = calls.get(r.id);
    const path = join(dir, `${r.sessionId}.tape`);
    if (!call || call.line.kind !== 'echo' || !existsSync(path)) continue;
    const { mic, ref, rateHz } = paired(path);
    const w = Math.round(WINDOW_S * rateHz);
    const maxLag = Math.round(MAX_LAG_S * rateHz);
    const follow = Math.round(FOLLOW_S * rateHz);
    const seen: string[] = [];
    let last: number | null = null;
    for (const at of utteranceStarts(ref, rateHz)) {
      if (at + maxLag + w > mic.length) break;
      const found = bestLag(mic, ref, at, w, last === null ? 0 : Math.max(0, last - follow), last === null ? maxLag : Math.min(maxLag, last + follow));
      if (found.corr < MIN_CORR) {
        seen.push(`(${found.lag})`);
        continue;
      }
      if (last !== null) {
        const m = moves[call.line.echo.drift ? 'drifting' : 'fixed'];
        m.set(found.lag - last, (m.get(found.lag - last) ?? 0) + 1);
      }
      seen.push(String(found.lag));
      last = found.lag;
    }
    const e = call.line.echo;
    console.log(`${phase.load} ${r.id} ${e.delayMs} ms${e.drift ? ' drifting' : ''}: ${seen.join(' ')}`);
  }
}
for (const [kind, m] of Object.entries(moves)) {
  const all = [...m.values()].reduce((a, b) => a + b, 0);
  const same = m.get(0) ?? 0;
  const near = [...m.entries()].filter(([d]) => Math.abs(d) <= 16).reduce((a, [, n]) => a + n, 0);
  const top = [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([d, n]) => `${d}: ${n}`).join(', ');
  console.log(`${kind} paths, ${all} consecutive utterances measured: the same lag ${same}, within 16 samples ${near}; moves (samples: count) ${top}`);
}
