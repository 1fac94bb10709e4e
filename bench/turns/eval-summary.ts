// Figures, targets and tables of the evaluation phases (bench/turns/eval.ts). Every trial is
// counted once: a hit (its latency), a miss (no `interrupted` / `clear` within 3 s of the
// onset), or pre-empted (the agent was cut before the caller spoke: a false barge-in). The
// tail figures (p95*, max*) rank misses and pre-empted trials as slower than any hit, so they
// cannot hide; hits-only figures are shown beside them.
import type { EvalCallersReport, EvalCallResult, Said } from './eval-callers.js';
import type { EvalServerReport } from './eval-server.js';
import type { EchoSpec } from './eval-audio.js';
import { lineGroup, lineName, type EvalCall, type EvalSizes, type Half, type LoadKind, type Path } from './eval-set.js';
import { stallIn, type Stall } from './stalls.js';

export interface EvalPhase {
  load: LoadKind;
  calls: EvalCall[];
  results: EvalCallResult[];
  server: EvalServerReport;
  callers: EvalCallersReport;
  durationMs: number;
  loadavg: { atStart: number; during: number[] };
}

export const EVAL_TARGETS = { barge_in_p95_ms: 150, barge_in_max_ms: 400, false_barge_ins_per_10_min: 0 };
/** An `interrupted` / `clear` later than this after the onset does not count as the trial's. */
const HIT_WINDOW_MS = 3000;
const GROUPS = ['clean', 'echo', 'white', 'pink', 'babble', 'street', 'music'];
const NOISE_GROUPS = ['white', 'pink', 'babble', 'street', 'music'];
const KINDS = ['greeting', 'answer', 'reminder'];

type Outcome = 'hit' | 'miss' | 'pre-empted';

export interface Trial {
  load: LoadKind;
  half: Half;
  path: Path;
  call: string;
  direction: string;
  /** The agent turn cut into: greeting, answer, reminder (from the server's log), or `unknown`. */
  kind: string;
  window: 'first300' | 'mid';
  group: string;
  line: string;
  voice: string;
  levelDbfs: number;
  onsetClass: string;
  text: string;
  /** When the caller's first frame went out, after the utterance's first frame arrived. */
  offsetMs: number;
  outcome: Outcome;
  latencyMs: number | null;
  /** Server side (epoch-aligned): onset → the detector fired; fired → `interrupted`/`clear` sent; sent → arrived. */
  detectorMs: number | null;
  engineMs: number | null;
  deliveryMs: number | null;
  diagnosis: string;
  /** Longest stall of either process (or injected) from 100 ms before the onset to the hit (or the window's end). */
  stallMs: number;
  /** Agent speech the call had carried with the caller silent before this onset (the echo detector learns during it), ms. */
  heardMs: number;
  echo: EchoSpec | null;
}

/** Echo lines split by one property of their path: [name, test]. */
const ECHO_SPLITS: [string, (e: EchoSpec) => boolean][] = [
  ['return loss 6-15 dB', (e) => e.erlDb < 15],
  ['return loss 15-25 dB', (e) => e.erlDb >= 15 && e.erlDb < 25],
  ['return loss 25-40 dB', (e) => e.erlDb >= 25],
  ['delay 20-150 ms', (e) => e.delayMs < 150],
  ['delay 150-400 ms', (e) => e.delayMs >= 150],
  ['clipping', (e) => e.clip],
  ['no clipping', (e) => !e.clip],
  ['band-pass', (e) => e.bandpass],
  ['no band-pass', (e) => !e.bandpass],
  ['μ-law', (e) => e.mulaw],
  ['no μ-law', (e) => !e.mulaw],
  ['drifting', (e) => e.drift],
  ['fixed', (e) => !e.drift],
];

const round = (v: number, d = 1) => (Number.isFinite(v) ? Math.round(v * 10 ** d) / 10 ** d : null);

/** Nearest-rank percentile; Infinity ranks last. */
function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

export interface BargeStats {
  trials: number;
  hits: number;
  missed: number;
  pre_empted: number;
  /** All trials, misses and pre-empted as +Infinity (null when that is the value). */
  p50_ms: number | null | undefined;
  p95_ms: number | null | undefined;
  max_ms: number | null | undefined;
  /** Hits only. */
  hits_p50_ms: number | null | undefined;
  hits_p95_ms: number | null | undefined;
  hits_max_ms: number | null | undefined;
}

export function bargeStats(ts: Trial[]): BargeStats {
  const all = ts.map((t) => (t.outcome === 'hit' ? t.latencyMs! : Infinity));
  const hits = ts.filter((t) => t.outcome === 'hit').map((t) => t.latencyMs!);
  // null: a miss is the value; undefined: no trials.
  const fin = (v: number) => (Number.isNaN(v) ? undefined : Number.isFinite(v) ? round(v) : null);
  return {
    trials: ts.length,
    hits: hits.length,
    missed: ts.filter((t) => t.outcome === 'miss').length,
    pre_empted: ts.filter((t) => t.outcome === 'pre-empted').length,
    p50_ms: fin(pct(all, 50)),
    p95_ms: fin(pct(all, 95)),
    max_ms: fin(all.length ? Math.max(...all) : NaN),
    hits_p50_ms: fin(pct(hits, 50)),
    hits_p95_ms: fin(pct(hits, 95)),
    hits_max_ms: fin(hits.length ? Math.max(...hits) : NaN),
  };
}

interface SessionLog {
  turns: [number, string][];
  events: [number, number, number, number][];
  sent: [number, string][];
  commits: [number, number][];
}

function bySession(log: EvalServerReport['log']): Map<string, SessionLog> {
  const m = new Map<string, SessionLog>();
  const get = (sid: string) => {
    let s = m.get(sid);
    if (!s) m.set(sid, (s = { turns: [], events: [], sent: [], commits: [] }));
    return s;
  };
  for (const [sid, at, kind] of log.turns) get(sid).turns.push([at, kind]);
  for (const [sid, at, ev, audible, barge] of log.events) get(sid).events.push([at, ev, audible, barge]);
  for (const [sid, at, what] of log.sent) get(sid).sent.push([at, what]);
  for (const [sid, at, heard] of log.commits) get(sid).commits.push([at, heard]);
  return m;
}

const EMPTY: SessionLog = { turns: [], events: [], sent: [], commits: [] };

/** The kind of the agent turn whose first frame arrived at `at` (the server started it just before). */
function kindAt(log: SessionLog, at: number): string {
  let kind = 'unknown';
  for (const [t, k] of log.turns) if (t <= at + 30 && t >= at - 1500) kind = k;
  return kind;
}

interface FalseBargeIn {
  load: LoadKind;
  half: Half;
  path: Path;
  call: string;
  group: string;
  epochMs: number;
  /** The agent turn being said, and how long it had been arriving. */
  kind: string;
  intoRunMs: number | null;
  /** Longest stall of the media server (monitored or injected), and of the callers' process (the harness), in the 3 s before. */
  serverStallMs: number;
  callerStallMs: number;
  /** The barge-in detector fired on the server (with the agent audible) within 300 ms before. */
  detector: boolean;
  echo: EchoSpec | null;
}

interface TurnTaking {
  load: LoadKind;
  half: Half;
  path: Path;
  group: string;
  /** What the caller said: a prompt or a pause sentence (spoken into silence), or a cut-in that was heard. */
  kind: Said['kind'];
  /** End of the caller's speech (its last frame within 20 dB of its level, sent) → first agent frame arrived. */
  endToAudioMs: number;
}

interface PauseResult {
  load: LoadKind;
  half: Half;
  path: Path;
  group: string;
  /** The STT was asked to finalize (the turn was ended) during the pause. */
  commitInPause: boolean;
  /** The agent's answer started arriving during the pause. */
  audioInPause: boolean;
  /** ... or before the caller finished the sentence. */
  audioBeforeEnd: boolean;
}

function analysePhase(ph: EvalPhase) {
  const logs = bySession(ph.server.log);
  const serverStalls: Stall[] = [...ph.server.stalls.stalls, ...ph.server.injected.map((s) => ({ ...s, runqueueMs: NaN }))];
  const callerStalls: Stall[] = ph.callers.stalls.stalls;
  const stalls: Stall[] = [...serverStalls, ...callerStalls];
  const callOf = new Map(ph.calls.map((c) => [c.id, c]));
  const trials: Trial[] = [];
  const falses: FalseBargeIn[] = [];
  const turns: TurnTaking[] = [];
  const pauses: PauseResult[] = [];
  const exposure = new Map<string, number>(); // `${half}|${path}|${group}` → ms of agent speech with the caller silent
  /** First-300-ms cut-ins of the scripts that never happened: no agent utterance came to cut into. */
  const notConducted: { half: Half; path: Path; group: string; abandoned: boolean }[] = [];
  let failed = 0;
  for (const r of ph.results) {
    const c = callOf.get(r.id)!;
    if (r.error) failed++;
    const log = logs.get(r.sessionId) ?? EMPTY;
    const group = lineGroup(c.line);
    for (const i of r.skipped) {
      const st = c.steps[i];
      if (st?.do === 'barge' && st.window === 'first300') notConducted.push({ half: c.half, path: c.path, group, abandoned: !!r.abandoned });
    }
    // A call that failed before it connected has all its cut-ins not conducted.
    if (r.error && !r.said.length) for (const st of c.steps) if (st.do === 'barge' && st.window === 'first300') notConducted.push({ half: c.half, path: c.path, group, abandoned: true });
    const interrupts = [...r.interrupts].sort((a, b) => a - b);
    const used = new Set<number>();
    const hitSaid = new Set<Said>();
    const said = r.said.filter((s) => s.startAt > 0);
    const speaking = (t: number, padMs: number) => said.some((s) => t >= s.startAt && t <= (s.doneAt || s.startAt + 5000) + padMs);

    const quietRuns = callerSilentRuns(r.runs, said);
    const heardBefore = (t: number) => quietRuns.reduce((n, [a, b]) => n + Math.max(0, Math.min(b, t) - a), 0);

    // Barge-in trials, in order. A trial's window ends 3 s after its onset, or when the caller says something else.
    for (const s of said.filter((x) => x.kind === 'barge')) {
      const onset = s.onsetAt || s.startAt;
      const utteranceAt = s.utteranceAt ?? s.startAt;
      const nextSaid = said.find((x) => x.startAt > s.startAt);
      const end = Math.min(onset + HIT_WINDOW_MS, nextSaid ? nextSaid.startAt : Infinity);
      const pre = interrupts.findIndex((t, j) => !used.has(j) && t >= utteranceAt && t < s.startAt);
      const hit = interrupts.findIndex((t, j) => !used.has(j) && t >= s.startAt && t <= end);
      let outcome: Outcome = 'miss';
      let latencyMs: number | null = null;
      if (pre >= 0) outcome = 'pre-empted';
      else if (hit >= 0) {
        outcome = 'hit';
        used.add(hit);
        hitSaid.add(s);
        latencyMs = interrupts[hit] - onset;
      }
      const to = hit >= 0 && outcome === 'hit' ? interrupts[hit] : end;
      // Server side: the detector, the engine, delivery.
      const fired = log.events.filter(([t, ev]) => ev & 4 && t >= s.startAt - 20 && t <= end);
      const firedAudible = fired.find(([, , aud, barge]) => aud && barge);
      const sent = log.sent.find(([t]) => t >= s.startAt - 20 && t <= end);
      const firstFire = firedAudible ?? fired[0];
      let held = false;
      if (!fired.length) {
        // Fired earlier (noise, echo, the caller's previous words) and not re-armed since?
        const before = log.events.filter(([t, ev]) => t < s.startAt && ev & 12);
        const last = before[before.length - 1];
        held = last !== undefined && (last[1] & 4) !== 0 && (last[1] & 8) === 0;
      }
      const kind = kindAt(log, utteranceAt);
      const run = r.runs.find(([a]) => Math.abs(a - utteranceAt) < 1);
      let diagnosis = 'cut';
      if (outcome === 'pre-empted') diagnosis = 'pre-empted by a false barge-in';
      else if (outcome === 'miss') {
        if (!fired.length) diagnosis = held ? 'detector still latched from earlier sound (not re-armed)' : 'detector never fired';
        else if (!firedAudible) diagnosis = 'detector fired, agent not audible to the engine';
        else if (run && firedAudible[0] > run[1] + 30) diagnosis = `detector fired after the ${kind} had played out`;
        else if (!sent) diagnosis = `detector fired, engine did not cut the ${kind}`;
        else diagnosis = 'sent, not received in time';
      }
      trials.push({
        load: ph.load,
        half: c.half,
        path: c.path,
        call: c.id,
        direction: c.direction,
        kind,
        window: s.window ?? 'first300',
        group,
        line: lineName(c.line),
        voice: c.caller.voice,
        levelDbfs: c.caller.levelDbfs,
        onsetClass: s.onsetClass ?? '',
        text: s.text,
        offsetMs: Math.round(s.startAt - utteranceAt),
        outcome,
        latencyMs: latencyMs === null ? null : round(latencyMs),
        detectorMs: firstFire ? round(firstFire[0] - onset) : null,
        engineMs: firstFire && sent ? round(sent[0] - firstFire[0]) : null,
        deliveryMs: sent && outcome === 'hit' ? round(interrupts[hit] - sent[0]) : null,
        diagnosis,
        stallMs: stallIn(stalls, onset - 100, to),
        heardMs: Math.round(heardBefore(onset)),
        echo: c.line.kind === 'echo' ? c.line.echo : null,
      });
      if (pre >= 0) used.add(pre);
    }

    // Every other `interrupted` / `clear`: the caller's own speech, or false.
    for (const [j, t] of interrupts.entries()) {
      if (used.has(j) || speaking(t, 500)) continue;
      const run = r.runs.filter(([a]) => a <= t).pop();
      falses.push({
        load: ph.load,
        half: c.half,
        path: c.path,
        call: c.id,
        group,
        epochMs: t,
        kind: run ? kindAt(log, run[0]) : 'none',
        intoRunMs: run ? Math.round(t - run[0]) : null,
        serverStallMs: stallIn(serverStalls, t - 3000, t),
        callerStallMs: stallIn(callerStalls, t - 3000, t),
        detector: log.events.some(([e, ev, aud]) => ev & 4 && aud && e >= t - 300 && e <= t),
        echo: c.line.kind === 'echo' ? c.line.echo : null,
      });
    }

    // Exposure: agent speech arriving while the caller was silent.
    const ms = quietRuns.reduce((n, [a, b]) => n + (b - a), 0);
    const key = `${c.half}|${c.path}|${group}`;
    exposure.set(key, (exposure.get(key) ?? 0) + ms);
    if (c.line.kind === 'echo') {
      for (const [name, test] of ECHO_SPLITS) {
        if (!test(c.line.echo)) continue;
        const k = `${c.half}|${c.path}|echo: ${name}`;
        exposure.set(k, (exposure.get(k) ?? 0) + ms);
      }
    }

    // Turn-taking: end of the caller's speech → the next agent utterance, when the agent was quiet at that end.
    for (const s of said) {
      if (!s.endAt) continue;
      if (s.kind === 'barge' && !hitSaid.has(s)) continue;
      const active = r.runs.some(([a, b]) => a <= s.endAt && b >= s.endAt - 100);
      if (active) continue;
      const next = r.runs.find(([a]) => a > s.endAt && a < s.endAt + 6000);
      if (next) turns.push({ load: ph.load, half: c.half, path: c.path, group, kind: s.kind, endToAudioMs: round(next[0] - s.endAt)! });
      if (s.kind === 'pause' && s.pauseFrom && s.pauseTo) {
        const from = s.pauseFrom;
        const to = s.pauseTo + 20;
        pauses.push({
          load: ph.load,
          half: c.half,
          path: c.path,
          group,
          commitInPause: log.commits.some(([t]) => t >= from && t <= to),
          audioInPause: r.runs.some(([a]) => a >= from && a <= to),
          audioBeforeEnd: r.runs.some(([a]) => a >= from && a <= s.endAt),
        });
      }
    }
  }
  return { trials, falses, turns, pauses, exposure, failed, stalls, notConducted };
}

function falseTable(falses: FalseBargeIn[], exposure: Map<string, number>, half: Half, path: Path, groups: string[]) {
  const out: Record<string, { agent_speech_min: number | null; false_barge_ins: number; per_10_min: number | null; after_server_stall: number; after_callers_stall: number; at_turn_start: number }> = {};
  for (const g of groups) {
    const min = (exposure.get(`${half}|${path}|${g}`) ?? 0) / 60_000;
    const fs = falses.filter((f) => f.half === half && f.path === path && f.group === g);
    out[g] = {
      agent_speech_min: round(min, 2),
      false_barge_ins: fs.length,
      per_10_min: min > 0 ? round((fs.length / min) * 10, 2) : null,
      // Within 3 s after a stall >= 50 ms of the media server, or of the callers' process (the harness: its playout falls behind).
      after_server_stall: fs.filter((f) => f.serverStallMs >= 50).length,
      after_callers_stall: fs.filter((f) => f.serverStallMs < 50 && f.callerStallMs >= 50).length,
      at_turn_start: fs.filter((f) => f.intoRunMs !== null && f.intoRunMs < 500).length,
    };
  }
  return out;
}

function turnStats(ts: TurnTaking[]) {
  const xs = ts.map((t) => t.endToAudioMs);
  return { n: xs.length, p50_ms: round(pct(xs, 50)), p95_ms: round(pct(xs, 95)), max_ms: round(xs.length ? Math.max(...xs) : NaN) };
}

function pauseStats(ps: PauseResult[]) {
  const early = ps.filter((p) => p.commitInPause || p.audioInPause).length;
  return {
    sentences: ps.length,
    ended_too_early: early,
    share: ps.length ? round(early / ps.length, 3) : null,
    stt_commit_in_pause: ps.filter((p) => p.commitInPause).length,
    answer_started_in_pause: ps.filter((p) => p.audioInPause).length,
    answer_started_before_sentence_end: ps.filter((p) => p.audioBeforeEnd).length,
  };
}

function countBy<T>(xs: T[], key: (x: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of xs) out[key(x)] = (out[key(x)] ?? 0) + 1;
  return out;
}

/** Agent speech with the caller silent: the agent's runs minus the caller's speech and 300 ms after it. */
export function callerSilentRuns(runs: readonly (readonly number[])[], said: readonly { startAt: number; doneAt: number }[]): [number, number][] {
  const out: [number, number][] = [];
  for (const [a, b] of runs) {
    let pieces: [number, number][] = [[a, b + 20]];
    for (const s of said) {
      const from = s.startAt;
      const to = (s.doneAt || s.startAt) + 300;
      pieces = pieces.flatMap(([x, y]): [number, number][] => (to <= x || from >= y ? [[x, y]] : ([[x, Math.min(y, from)], [Math.max(x, to), y]] as [number, number][]).filter(([p, q]) => q > p)));
    }
    out.push(...pieces);
  }
  return out;
}

export function summarizeEval(phases: EvalPhase[], meta: { seed: number; sizes: EvalSizes; slots: number; wallMs: number }): { json: unknown; table: string } {
  const analysed = phases.map((ph) => ({ ph, ...analysePhase(ph) }));
  const lines: string[] = [];
  const f = (v: unknown, w = 7) => String(v === null || v === undefined ? (v === null ? 'miss' : '-') : v).padStart(w);
  const firsts = (ts: Trial[]) => ts.filter((t) => t.window === 'first300');
  const json: Record<string, unknown> = {
    seed: meta.seed,
    sizes: meta.sizes,
    slots: meta.slots,
    wall_s: Math.round(meta.wallMs / 1000),
    method: {
      trial: 'the caller cuts in 0-300 ms after the first frame of an agent utterance arrived (greeting, answer, reminder); latency = onset (send time of the first 20 ms frame within 20 dB of the caller\'s active level; -40 dBFS for a -20 dBFS caller) -> `interrupted` (web) / `clear` (carrier) arrival; none within 3 s = missed; cut before the caller spoke = pre-empted',
      tails: 'p50/p95/max count every trial: missed and pre-empted trials rank as slower than any hit (null = a miss is the value); hits_* are hits only',
      false_barge_in: '`interrupted`/`clear` while the caller was silent (not within a trial window, not during or 500 ms after any caller speech), per 10 min of agent speech arriving while the caller was silent',
      turn_taking: 'end of caller speech (last frame within 20 dB of its level, sent) -> first agent frame arrived, for utterances that ended with the agent quiet; too-early end in a 600 ms pause: the STT commit (the engine ended the turn) or the first answer frame arrived during the pause',
    },
    phases: {} as Record<string, unknown>,
  };
  const phaseJson = json.phases as Record<string, unknown>;

  for (const a of analysed) {
    const { ph, trials, falses, turns, pauses, exposure, notConducted } = a;
    const sel = (half: Half, path: Path) => firsts(trials).filter((t) => t.half === half && t.path === path);
    const halves = [...new Set(ph.calls.map((c) => c.half))].sort((x, y) => (x === 'heldout' ? -1 : y === 'heldout' ? 1 : 0));
    const pj: Record<string, unknown> = {
      duration_s: Math.round(ph.durationMs / 1000),
      loadavg: ph.loadavg,
      calls: ph.results.length,
      calls_failed: a.failed,
      server: {
        cpu_percent: round((ph.server.cpuMs / ph.server.wallMs) * 100),
        event_loop_delay_ms: ph.server.eventLoopDelayMs,
        stalls_over_50ms: ph.server.stalls.stalls.filter((s) => s.ms >= 50).length,
        max_stall_ms: ph.server.stalls.stalls.reduce((m, s) => Math.max(m, s.ms), 0),
        injected_stalls: ph.server.injected.length,
        runqueue_share: ph.server.stalls.runqueueShare,
      },
      callers: { cpu_percent: ph.callers.cpuPercent, event_loop_delay_ms: ph.callers.eventLoopDelayMs, stalls_over_50ms: ph.callers.stalls.stalls.filter((s) => s.ms >= 50).length, max_stall_ms: ph.callers.stalls.stalls.reduce((m, s) => Math.max(m, s.ms), 0) },
    };
    for (const half of halves) {
      const hj: Record<string, unknown> = {};
      for (const path of ['web', 'carrier'] as Path[]) {
        const ts = sel(half, path);
        const mid = trials.filter((t) => t.half === half && t.path === path && t.window === 'mid');
        hj[path] = {
          barge_in: bargeStats(ts),
          /** Scripted first-300-ms cut-ins that could not happen (the agent never spoke), by line; not in the figures. */
          not_conducted: countBy(notConducted.filter((x) => x.half === half && x.path === path), (x) => x.group),
          calls_given_up: new Set(ph.results.filter((r) => r.abandoned && r.half === half && r.path === path).map((r) => r.id)).size,
          by_kind: Object.fromEntries(KINDS.map((k) => [k, bargeStats(ts.filter((t) => t.kind === k))])),
          unknown_kind: ts.filter((t) => !KINDS.includes(t.kind)).length,
          by_line: Object.fromEntries(GROUPS.map((g) => [g, bargeStats(ts.filter((t) => t.group === g))])),
          answers_by_line: Object.fromEntries(GROUPS.map((g) => [g, bargeStats(ts.filter((t) => t.group === g && t.kind === 'answer'))])),
          by_onset: Object.fromEntries(['approximant', 'plosive', 'fricative', 'nasal', 'vowel'].map((o) => [o, bargeStats(ts.filter((t) => t.onsetClass === o))])),
          by_level: Object.fromEntries(
            [
              ['-15..-22', -22, -15],
              ['-22..-30', -30, -22],
              ['-30..-40', -40, -30],
            ].map(([k, lo, hi]) => [k, bargeStats(ts.filter((t) => t.levelDbfs >= (lo as number) && t.levelDbfs < (hi as number) + 0.01))]),
          ),
          by_direction: path === 'carrier' ? Object.fromEntries(['inbound', 'outbound'].map((d) => [d, bargeStats(ts.filter((t) => t.direction === d))])) : undefined,
          greeting_by_direction: path === 'carrier' ? Object.fromEntries(['inbound', 'outbound'].map((d) => [d, bargeStats(ts.filter((t) => t.direction === d && t.kind === 'greeting'))])) : undefined,
          answers_mid_0_8_to_1_2_s: bargeStats(mid),
          by_agent_speech_heard_before: Object.fromEntries(
            [
              ['under 2 s', 0, 2000],
              ['2-5 s', 2000, 5000],
              ['5-15 s', 5000, 15_000],
              ['over 15 s', 15_000, Infinity],
            ].map(([k, lo, hi]) => [k, bargeStats(ts.filter((t) => t.heardMs >= (lo as number) && t.heardMs < (hi as number)))]),
          ),
          misses_by_diagnosis: countBy(ts.filter((t) => t.outcome !== 'hit'), (t) => `${t.kind}: ${t.diagnosis}`),
          hits_split_ms: {
            detector: dist(ts.filter((t) => t.outcome === 'hit' && t.detectorMs !== null).map((t) => t.detectorMs!)),
            engine: dist(ts.filter((t) => t.outcome === 'hit' && t.engineMs !== null).map((t) => t.engineMs!)),
            delivery: dist(ts.filter((t) => t.outcome === 'hit' && t.deliveryMs !== null).map((t) => t.deliveryMs!)),
          },
          /** Every trial not cut, and every cut slower than the max target (400 ms). */
          slow_or_missed: ts
            .filter((t) => t.outcome !== 'hit' || t.latencyMs! > EVAL_TARGETS.barge_in_max_ms)
            .map((t) => ({ call: t.call, kind: t.kind, line: t.line, voice: t.voice, level: t.levelDbfs, onset: t.onsetClass, text: t.text, offset_ms: t.offsetMs, outcome: t.outcome, latency_ms: t.latencyMs, detector_ms: t.detectorMs, engine_ms: t.engineMs, diagnosis: t.diagnosis, stall_ms: t.stallMs })),
          false_barge_ins: falseTable(falses, exposure, half, path, GROUPS),
          echo_by_path_property: Object.fromEntries(
            ECHO_SPLITS.map(([name, test]) => {
              const min = (exposure.get(`${half}|${path}|echo: ${name}`) ?? 0) / 60_000;
              const n = falses.filter((x) => x.half === half && x.path === path && x.echo && test(x.echo)).length;
              return [name, { barge_in: bargeStats(ts.filter((t) => t.echo && test(t.echo))), agent_speech_min: round(min, 2), false_barge_ins: n, false_per_10_min: min > 0 ? round((n / min) * 10, 2) : null }];
            }),
          ),
          false_barge_in_detail: falses.filter((x) => x.half === half && x.path === path).map((x) => ({ call: x.call, group: x.group, kind: x.kind, into_run_ms: x.intoRunMs, server_stall_ms: x.serverStallMs, callers_stall_ms: x.callerStallMs, detector: x.detector })),
          turn_taking: {
            end_of_speech_to_first_audio_ms: turnStats(turns.filter((t) => t.half === half && t.path === path)),
            in_silence_clean_line: turnStats(turns.filter((t) => t.half === half && t.path === path && t.kind !== 'barge' && t.group === 'clean')),
            by_line: Object.fromEntries(GROUPS.map((g) => [g, turnStats(turns.filter((t) => t.half === half && t.path === path && t.group === g))])),
            after_a_cut_in: turnStats(turns.filter((t) => t.half === half && t.path === path && t.kind === 'barge')),
            pause_600ms: pauseStats(pauses.filter((p) => p.half === half && p.path === path)),
          },
        };
      }
      pj[half] = hj;
    }
    phaseJson[ph.load] = pj;
  }

  // ------------------------------------------------------------- tables
  const get = (load: string, half: Half, path: Path) => ((phaseJson[load] as Record<string, Record<string, unknown>> | undefined)?.[half]?.[path] ?? null) as Record<string, unknown> | null;
  const bs = (x: BargeStats | undefined) => (x ? `${f(x.trials, 6)}${f(x.missed, 5)}${f(x.pre_empted, 4)}${f(x.p50_ms, 7)}${f(x.p95_ms, 7)}${f(x.max_ms, 7)}${f(x.hits_p95_ms, 7)}` : ' '.repeat(43));
  const head = '  trials miss pre    p50   p95*   max* hitp95';
  lines.push('');
  lines.push('EVALUATION SET: barge-in in the first 300 ms of an agent utterance (onset -> `interrupted` on the web socket, `clear` on Twilio media streams), ms');
  lines.push('p95*/max* count every trial: a missed or pre-empted trial ranks slower than any hit ("miss" = a miss is the value); hitp95 = hits only');
  for (const a of analysed) {
    const load = a.ph.load;
    const halves = [...new Set(a.ph.calls.map((c) => c.half))].sort((x) => (x === 'heldout' ? -1 : 1));
    lines.push('');
    lines.push(`[${load}] ${a.ph.results.length} calls, ${Math.round(a.ph.durationMs / 1000)} s` + (a.failed ? `, ${a.failed} calls failed` : ''));
    lines.push(`${''.padEnd(38)}${halves.map((h) => `|${(h === 'heldout' ? 'HELD-OUT (headline)' : 'tuning').padStart(25).padEnd(43)}`).join('')}`);
    lines.push(`${''.padEnd(38)}${halves.map(() => `|${head.slice(1)}`).join('')}`);
    for (const path of ['web', 'carrier'] as Path[]) {
      const row = (name: string, pick: (j: Record<string, unknown>) => BargeStats | undefined) =>
        lines.push(`${name.padEnd(38)}${halves.map((h) => `|${bs(get(load, h, path) ? pick(get(load, h, path)!) : undefined).slice(1)}`).join('')}`);
      row(`${path} all`, (j) => j.barge_in as BargeStats);
      for (const k of KINDS) row(`  ${k}`, (j) => (j.by_kind as Record<string, BargeStats>)[k]);
      if (path === 'carrier') for (const d of ['inbound', 'outbound']) row(`  ${d} calls`, (j) => (j.by_direction as Record<string, BargeStats>)[d]);
      if (path === 'carrier') for (const d of ['inbound', 'outbound']) row(`  greeting, ${d} calls`, (j) => (j.greeting_by_direction as Record<string, BargeStats>)[d]);
      for (const g of GROUPS) row(`  line: ${g}`, (j) => (j.by_line as Record<string, BargeStats>)[g]);
      // The quiet phase in full; under load the main rows (the JSON has them all).
      if (load === 'quiet') {
        for (const g of GROUPS) row(`  answers only, line: ${g}`, (j) => (j.answers_by_line as Record<string, BargeStats>)[g]);
        for (const o of ['approximant', 'plosive', 'fricative', 'nasal', 'vowel']) row(`  onset: ${o}`, (j) => (j.by_onset as Record<string, BargeStats>)[o]);
        for (const l of ['-15..-22', '-22..-30', '-30..-40']) row(`  caller level ${l} dBFS`, (j) => (j.by_level as Record<string, BargeStats>)[l]);
      }
      for (const k of ['under 2 s', '2-5 s', '5-15 s', 'over 15 s']) row(`  agent speech before it: ${k}`, (j) => (j.by_agent_speech_heard_before as Record<string, BargeStats>)[k]);
      row(`  answers cut 0.8-1.2 s in (issue)`, (j) => j.answers_mid_0_8_to_1_2_s as BargeStats);
    }
    for (const h of halves) {
      for (const path of ['web', 'carrier'] as Path[]) {
        const j = get(load, h, path);
        if (!j) continue;
        const nc = j.not_conducted as Record<string, number>;
        const ncKeys = Object.keys(nc);
        if (ncKeys.length) lines.push(`  not conducted, ${h} ${path} (no agent utterance came to cut into; ${j.calls_given_up as number} calls given up): ${ncKeys.map((k) => `${k} ${nc[k]}`).join('; ')}`);
        const d = j.misses_by_diagnosis as Record<string, number>;
        const keys = Object.keys(d).sort((x, y) => d[y] - d[x]);
        if (keys.length) lines.push(`  not cut, ${h} ${path}: ${keys.map((k) => `${k} ${d[k]}`).join('; ')}`);
        const sp = j.hits_split_ms as Record<string, Record<string, number | null>>;
        lines.push(`  hits, ${h} ${path}: onset -> detector fired p50 ${sp.detector.p50} / p95 ${sp.detector.p95}; fired -> sent p95 ${sp.engine.p95}; sent -> arrived p95 ${sp.delivery.p95} ms`);
      }
    }
  }

  lines.push('');
  lines.push('false barge-ins per 10 min of agent speech with the caller silent (agent-min / count / per-10-min; -30 dBFS noises)');
  lines.push(`${''.padEnd(26)}${GROUPS.map((g) => g.padStart(19)).join('')}`);
  for (const a of analysed) {
    const halves = [...new Set(a.ph.calls.map((c) => c.half))].sort((x) => (x === 'heldout' ? -1 : 1));
    for (const h of halves) {
      for (const path of ['web', 'carrier'] as Path[]) {
        const j = get(a.ph.load, h, path);
        if (!j) continue;
        const ft = j.false_barge_ins as ReturnType<typeof falseTable>;
        lines.push(`${`[${a.ph.load}] ${h} ${path}`.padEnd(26)}${GROUPS.map((g) => `${round(ft[g].agent_speech_min ?? 0, 1)}/${ft[g].false_barge_ins}/${ft[g].per_10_min ?? '-'}`.padStart(19)).join('')}`);
        const causes = GROUPS.filter((g) => ft[g].false_barge_ins > 0).map((g) => `${g}: ${ft[g].after_server_stall} after a server stall, ${ft[g].after_callers_stall} after a harness stall, ${ft[g].at_turn_start} in a turn's first 500 ms`);
        if (causes.length) lines.push(`${''.padEnd(28)}(${causes.join('; ')})`);
      }
    }
  }

  lines.push('');
  lines.push('turn-taking (instant providers): end of caller speech -> first agent audio, ms (n p50 p95); a 600 ms pause inside a sentence: turns ended too early / sentences (STT commit in the pause, answer started in the pause)');
  for (const a of analysed) {
    const halves = [...new Set(a.ph.calls.map((c) => c.half))].sort((x) => (x === 'heldout' ? -1 : 1));
    for (const h of halves) {
      for (const path of ['web', 'carrier'] as Path[]) {
        const j = get(a.ph.load, h, path);
        if (!j) continue;
        const tt = j.turn_taking as Record<string, Record<string, number | null>>;
        const all = tt.end_of_speech_to_first_audio_ms;
        const clean = tt.in_silence_clean_line;
        const p = tt.pause_600ms;
        lines.push(
          `  ${`[${a.ph.load}] ${h} ${path}`.padEnd(26)} all ${f(all.n, 4)} ${f(all.p50_ms)} ${f(all.p95_ms)} | clean line, into silence ${f(clean.n, 4)} ${f(clean.p50_ms)} ${f(clean.p95_ms)} | pause: ${p.ended_too_early}/${p.sentences} too early (commit ${p.stt_commit_in_pause}, answer ${p.answer_started_in_pause})`,
        );
      }
    }
  }

  // Targets (held-out half), per path and load.
  const targets: { name: string; load: string; path: Path; target: number; value: number | null | undefined; met: boolean }[] = [];
  for (const a of analysed) {
    for (const path of ['web', 'carrier'] as Path[]) {
      const j = get(a.ph.load, 'heldout', path);
      if (!j) continue;
      const b = j.barge_in as BargeStats;
      const val = (v: number | null | undefined) => (v === null || v === undefined ? Infinity : v);
      targets.push({ name: 'barge-in p95 (ms)', load: a.ph.load, path, target: EVAL_TARGETS.barge_in_p95_ms, value: b.p95_ms, met: b.trials > 0 && val(b.p95_ms) <= EVAL_TARGETS.barge_in_p95_ms });
      targets.push({ name: 'barge-in max (ms)', load: a.ph.load, path, target: EVAL_TARGETS.barge_in_max_ms, value: b.max_ms, met: b.trials > 0 && val(b.max_ms) <= EVAL_TARGETS.barge_in_max_ms });
      const ft = j.false_barge_ins as ReturnType<typeof falseTable>;
      for (const g of ['echo', ...NOISE_GROUPS]) {
        targets.push({ name: `false barge-ins/10 min, ${g}`, load: a.ph.load, path, target: 0, value: ft[g].per_10_min ?? undefined, met: ft[g].false_barge_ins === 0 && (ft[g].agent_speech_min ?? 0) > 0 });
      }
    }
  }
  json.targets = targets;
  lines.push('');
  const cols = [...new Set(targets.map((t) => `${t.path} ${t.load}`))];
  lines.push('evaluation targets (held-out half; barge-in over all first-300-ms trials, misses count):');
  lines.push(`  ${'target'.padEnd(38)}${cols.map((c) => c.padStart(17)).join('')}`);
  for (const name of [...new Set(targets.map((t) => t.name))]) {
    const goal = targets.find((t) => t.name === name)!.target;
    lines.push(
      `  ${`${name} <= ${goal}`.padEnd(38)}${cols
        .map((c) => {
          const t = targets.find((x) => x.name === name && `${x.path} ${x.load}` === c);
          const v = !t ? '-' : t.value === null ? 'miss' : t.value === undefined ? 'no data' : String(t.value);
          return (t ? `${v} ${t.met ? 'MET' : 'MISSED'}` : '-').padStart(17);
        })
        .join('')}`,
    );
  }
  for (const a of analysed) {
    const s = (phaseJson[a.ph.load] as Record<string, Record<string, unknown>>).server;
    const cl = (phaseJson[a.ph.load] as Record<string, Record<string, unknown>>).callers;
    lines.push(
      `[${a.ph.load}] server CPU ${s.cpu_percent}%, stalls >= 50 ms ${s.stalls_over_50ms} (max ${s.max_stall_ms} ms, injected ${s.injected_stalls}); callers CPU ${cl.cpu_percent}%, stalls >= 50 ms ${cl.stalls_over_50ms} (max ${cl.max_stall_ms} ms); load average ${a.ph.loadavg.atStart} -> ${a.ph.loadavg.during.join(' ')}`,
    );
  }
  return { json, table: lines.join('\n') };
}

function dist(xs: number[]) {
  return { n: xs.length, p50: round(pct(xs, 50)), p95: round(pct(xs, 95)), max: round(xs.length ? Math.max(...xs) : NaN) };
}
