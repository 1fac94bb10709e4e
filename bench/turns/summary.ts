// Figures, targets and the printed table of the turn benchmark.
import { BASELINE_MAIN_DBFS, BASELINE_NAME, BASELINE_THRESHOLDS_DBFS } from './baseline.js';
import type { CallerResult, CallersReport, FalseBargeIn } from './callers.js';
import type { ServerReport } from './server.js';
import { stallIn, type Stall } from './stalls.js';

export const TARGETS = { answer_latency_p99_ms: 10, barge_in_latency_p95_ms: 150, false_barge_ins_per_min: 0 };

const round = (v: number, d = 2) => (Number.isFinite(v) ? Math.round(v * 10 ** d) / 10 ** d : null);

/** Nearest-rank percentile. */
export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
}

function dist(xs: number[], ps: number[]) {
  const out: Record<string, number | null> = { n: xs.length };
  for (const p of ps) out[`p${p}`] = round(percentile(xs, p));
  out.max = round(xs.length ? Math.max(...xs) : NaN);
  out.mean = round(xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  return out;
}

/** Event-loop stalls of both processes (set by summarize). */
let stalls: Stall[] = [];

/**
 * Why a false barge-in happened, from what was seen just before it: the first frames of an
 * answer after silence, or within 3 s of a stall (either process's event loop held >= 50 ms,
 * or agent frames / microphone frames bunched by >= 60 ms in the second before).
 */
export function falseCause(f: FalseBargeIn): 'answer_start' | 'after_stall' | 'other' {
  if (f.arrivalGapMs >= 60 || f.micGapMs >= 60 || stallIn(stalls, f.epochMs - STALL_WINDOW_MS, f.epochMs) >= 50) return 'after_stall';
  if (f.intoRunMs !== null && f.intoRunMs < 500 && f.arrivalGapMs > 1000) return 'answer_start';
  return 'other';
}
/** A stall shifts the echo path (the caller's playout runs late from then on) until the detector re-learns it. */
const STALL_WINDOW_MS = 3000;

function stallSummary(r: ServerReport['stalls']) {
  const big = r.stalls.filter((s) => s.ms >= 50);
  const ms = big.reduce((n, s) => n + s.ms, 0);
  const wait = big.reduce((n, s) => n + (Number.isFinite(s.runqueueMs) ? s.runqueueMs : 0), 0);
  return {
    count: big.length,
    max_ms: big.reduce((m, s) => Math.max(m, s.ms), 0),
    total_ms: ms,
    runqueue_share_of_stalled_time: ms ? round(wait / ms) : null,
    runqueue_share_of_run: r.runqueueShare,
    list: big,
  };
}

function falseRate(rs: CallerResult[]) {
  const minutes = rs.reduce((n, r) => n + r.agentActiveMs, 0) / 60_000;
  const engine = rs.reduce((n, r) => n + r.falseInterruptions, 0);
  const causes = { answer_start: 0, after_stall: 0, other: 0 };
  for (const f of rs.flatMap((r) => r.falseDetail)) causes[falseCause(f)]++;
  const baseline = Object.fromEntries(
    BASELINE_THRESHOLDS_DBFS.map((t) => {
      const count = rs.reduce((n, r) => n + (r.baseline.find((b) => b.thresholdDbfs === t)?.falseDetections ?? 0), 0);
      return [`${t}dBFS`, { false_barge_ins: count, per_min: round(count / minutes) }];
    }),
  );
  return { agent_speech_min: round(minutes), engine: { false_barge_ins: engine, per_min: round(engine / minutes), causes }, baseline };
}

function bargeFigures(rs: CallerResult[]) {
  const lat = rs.flatMap((r) => r.bargeLatencyMs);
  const attempts = rs.reduce((n, r) => n + r.bargeAttempts, 0);
  const missed = rs.reduce((n, r) => n + r.bargeMissed, 0);
  const baseline = Object.fromEntries(
    BASELINE_THRESHOLDS_DBFS.map((t) => {
      const b = rs.map((r) => r.baseline.find((x) => x.thresholdDbfs === t)!);
      return [`${t}dBFS`, { latency_ms: dist(b.flatMap((x) => x.hitLatencyMs), [50, 95]), missed: b.reduce((n, x) => n + x.missed, 0), false_barge_ins: b.reduce((n, x) => n + x.falseDetections, 0) }];
    }),
  );
  // The echo detector starts assuming a strong echo (-10 dB) and learns the real one while the
  // agent speaks over a quiet line: latency by how much agent speech the call had carried.
  const early = rs.flatMap((r) => r.barges.slice(0, 3)).filter((b) => b.latencyMs !== null).map((b) => b.latencyMs!);
  const later = rs.flatMap((r) => r.barges.slice(3)).filter((b) => b.latencyMs !== null).map((b) => b.latencyMs!);
  const hasStall = (b: CallerResult['barges'][number]) => b.arrivalGapMs >= 60 || b.micGapMs >= 60 || stallIn(stalls, b.epochMs - 100, b.epochMs + (b.latencyMs ?? 3000)) >= 50;
  const all = rs.flatMap((r) => r.barges);
  const stalled = all.filter(hasStall).length;
  const calm = all.filter((b) => !hasStall(b) && b.latencyMs !== null).map((b) => b.latencyMs!);
  const heard = (lo: number, hi: number) => dist(all.filter((b) => b.latencyMs !== null && b.agentHeardMs >= lo && b.agentHeardMs < hi).map((b) => b.latencyMs!), [50, 95]);
  return {
    attempts,
    missed,
    false_barge_ins: rs.reduce((n, r) => n + r.falseInterruptions, 0),
    latency_ms: dist(lat, [50, 95, 99]),
    by_attempt: { first_3_of_each_call_ms: dist(early, [50, 95]), later_ms: dist(later, [50, 95]) },
    by_agent_speech_before_ms: { under_5s: heard(0, 5000), '5s_to_10s': heard(5000, 10_000), '10s_to_20s': heard(10_000, 20_000), over_20s: heard(20_000, Infinity) },
    attempts_with_a_stall: stalled,
    without_stalls_ms: dist(calm, [50, 95]),
    baseline,
  };
}

export function summarize(results: CallerResult[], server: ServerReport, callers: CallersReport) {
  stalls = [...server.stalls.stalls, ...callers.stalls.stalls];
  const kind = (k: string) => results.filter((r) => r.scenario.kind === k);
  const latencyIds = new Set(kind('latency').map((r) => r.sessionId));
  const serverAll = server.answers.map((a) => a.ms);
  const serverLatency = server.answers.filter((a) => latencyIds.has(a.sessionId)).map((a) => a.ms);
  const client = kind('latency').flatMap((r) => r.answerLatencyMs);
  const cleanBarge = results.filter((r) => r.scenario.kind === 'barge' && !r.scenario.echo && !r.scenario.noise && !r.scenario.warmup);
  const otherBarge = results.filter((r) => r.scenario.kind === 'barge' && !cleanBarge.includes(r));
  const group = (g: string) => results.filter((r) => r.scenario.kind === 'false' && r.scenario.group === g);
  const noise = falseRate(group('noise'));
  const echo = falseRate(group('echo'));
  const echoPlayout = group('echo-playout').length ? falseRate(group('echo-playout')) : null;
  const barge = bargeFigures(cleanBarge);

  const answer = {
    engine_probe_ms: dist(serverLatency, [50, 90, 99]),
    engine_probe_all_calls_ms: dist(serverAll, [50, 90, 99]),
    client_transcript_to_audio_ms: dist(client, [50, 90, 99]),
  };
  const targets = {
    answer_latency_p99_ms: { target: TARGETS.answer_latency_p99_ms, value: answer.engine_probe_ms.p99, met: (answer.engine_probe_ms.p99 ?? Infinity) <= TARGETS.answer_latency_p99_ms },
    barge_in_latency_p95_ms: { target: TARGETS.barge_in_latency_p95_ms, value: barge.latency_ms.p95, met: (barge.latency_ms.p95 ?? Infinity) <= TARGETS.barge_in_latency_p95_ms && barge.missed === 0 },
    false_barge_ins_per_min_noise: { target: 0, value: noise.engine.per_min, met: noise.engine.false_barge_ins === 0 },
    false_barge_ins_per_min_echo: { target: 0, value: echo.engine.per_min, met: echo.engine.false_barge_ins === 0 },
  };

  const perScenario = results.map((r) => ({
    name: r.scenario.name,
    kind: r.scenario.kind,
    session_id: r.sessionId,
    user_turns: r.userTurns,
    lost_turns: r.lostTurns,
    agent_speech_s: round(r.agentActiveMs / 1000, 1),
    client_answer_latency_ms: r.answerLatencyMs.length ? dist(r.answerLatencyMs, [50, 99]) : undefined,
    barge_ins: r.bargeAttempts ? { attempts: r.bargeAttempts, missed: r.bargeMissed, latency_ms: dist(r.bargeLatencyMs, [50, 95]) } : undefined,
    false_barge_ins: r.falseInterruptions,
    own_speech_interruptions: r.ownSpeechInterruptions || undefined,
    false_barge_in_detail: r.falseDetail.length ? r.falseDetail : undefined,
    barge_in_detail: r.barges.length ? r.barges : undefined,
    baseline: Object.fromEntries(r.baseline.map((b) => [`${b.thresholdDbfs}dBFS`, { false: b.falseDetections, hits: b.hitLatencyMs.length, missed: b.missed }])),
    close_code: r.closeCode,
  }));

  const json = {
    targets,
    answer_latency: answer,
    barge_in: { clean: barge, with_echo_or_noise: bargeFigures(otherBarge) },
    false_barge_ins: { noise, echo, echo_playout_model: echoPlayout },
    server: { event_loop_delay_ms: server.eventLoopDelayMs, cpu_percent: round((server.cpuMs / server.wallMs) * 100, 1), stalls: stallSummary(server.stalls) },
    callers_process: { event_loop_delay_ms: callers.eventLoopDelayMs, cpu_percent: callers.cpuPercent, stalls: stallSummary(callers.stalls) },
    per_scenario: perScenario,
  };

  // ------------------------------------------------------------- table
  const f = (v: number | null | undefined, w = 8) => String(v ?? '-').padStart(w);
  const main = `${BASELINE_MAIN_DBFS}dBFS`;
  const lines: string[] = [];
  lines.push('');
  lines.push('answer latency (endpointing decided -> first answer frame)        n      p50      p90      p99      max');
  lines.push(`  engine probe (onAnswerLatency), latency callers          ${f(answer.engine_probe_ms.n, 6)} ${f(answer.engine_probe_ms.p50)} ${f(answer.engine_probe_ms.p90)} ${f(answer.engine_probe_ms.p99)} ${f(answer.engine_probe_ms.max)}`);
  lines.push(`  engine probe, every call                                 ${f(answer.engine_probe_all_calls_ms.n, 6)} ${f(answer.engine_probe_all_calls_ms.p50)} ${f(answer.engine_probe_all_calls_ms.p90)} ${f(answer.engine_probe_all_calls_ms.p99)} ${f(answer.engine_probe_all_calls_ms.max)}`);
  lines.push(`  client: user transcript frame -> first binary frame      ${f(client.length, 6)} ${f(answer.client_transcript_to_audio_ms.p50)} ${f(answer.client_transcript_to_audio_ms.p90)} ${f(answer.client_transcript_to_audio_ms.p99)} ${f(answer.client_transcript_to_audio_ms.max)}`);
  lines.push('');
  lines.push(`barge-in latency (speech onset -> interrupted)          attempts  missed      p50      p95      max   | ${BASELINE_NAME} ${main}: p50  p95  missed`);
  type Dist = Record<string, number | null>;
  const bargeLine = (name: string, attempts: number | null, missed: number | null, d: Dist, bl?: { latency_ms: Dist; missed: number }) =>
    lines.push(`  ${name.padEnd(52)} ${f(attempts, 6)} ${f(missed, 7)} ${f(d.p50)} ${f(d.p95)} ${f(d.max)}   |` + (bl ? ` ${f(bl.latency_ms.p50, 24)} ${f(bl.latency_ms.p95, 4)} ${f(bl.missed, 6)}` : ''));
  const bargeRow = (name: string, b: ReturnType<typeof bargeFigures>) =>
    bargeLine(name, b.attempts, b.missed, b.latency_ms, b.baseline[main] as { latency_ms: Dist; missed: number });
  bargeRow('clean (engine defaults)', barge);
  for (const [k, d] of Object.entries(barge.by_agent_speech_before_ms)) bargeLine(`  after ${k.replace('under_', '< ').replace('over_', '> ').replace('_to_', '-')} of agent speech in the call`, d.n, null, d);
  bargeLine('  of which those with no stall (either process)', barge.without_stalls_ms.n, null, barge.without_stalls_ms);
  for (const r of otherBarge) bargeRow(r.scenario.name, bargeFigures([r]));
  lines.push('');
  lines.push(`false barge-ins while the agent speaks              agent-min  engine  per-min | ${BASELINE_NAME}:  -45   -40   -35   -30 dBFS (per min)`);
  const falseRow = (name: string, x: ReturnType<typeof falseRate>) => {
    const b = BASELINE_THRESHOLDS_DBFS.map((t) => f((x.baseline[`${t}dBFS`] as { per_min: number | null }).per_min, 5)).join(' ');
    const c = x.engine.causes;
    const why = x.engine.false_barge_ins ? `   (answer start ${c.answer_start}, after a stall ${c.after_stall}, other ${c.other})` : '';
    lines.push(`  ${name.padEnd(48)} ${f(x.agent_speech_min, 7)} ${f(x.engine.false_barge_ins, 7)} ${f(x.engine.per_min)} | ${' '.repeat(18)}${b}${why}`);
  };
  falseRow('NOISE (all)', noise);
  for (const r of group('noise')) falseRow(`  ${r.scenario.name}`, falseRate([r]));
  falseRow('ECHO (all; ScriptedCaller.enableEcho)', echo);
  for (const r of group('echo')) falseRow(`  ${r.scenario.name}`, falseRate([r]));
  if (echoPlayout) {
    falseRow('ECHO, constant-delay playout model (all)', echoPlayout);
    for (const r of group('echo-playout')) falseRow(`  ${r.scenario.name}`, falseRate([r]));
  }
  lines.push('');
  const st = (x: ReturnType<typeof stallSummary>) =>
    `${x.count} stalls >= 50 ms (max ${x.max_ms} ms, ${x.runqueue_share_of_stalled_time === null ? '?' : Math.round(x.runqueue_share_of_stalled_time * 100)}% of it waiting for a CPU); main thread waited for a CPU ${x.runqueue_share_of_run === null ? '?' : Math.round(x.runqueue_share_of_run * 1000) / 10}% of the run`;
  lines.push(`server stalls: ${st(json.server.stalls)}`);
  lines.push(`callers stalls: ${st(json.callers_process.stalls)}`);
  lines.push(`server: event-loop delay p50 ${round(server.eventLoopDelayMs.p50)} ms, p99 ${round(server.eventLoopDelayMs.p99)} ms, max ${round(server.eventLoopDelayMs.max)} ms; CPU ${json.server.cpu_percent}% of one core`);
  lines.push(`callers process: event-loop delay p50 ${round(callers.eventLoopDelayMs.p50)} ms, p99 ${round(callers.eventLoopDelayMs.p99)} ms, max ${round(callers.eventLoopDelayMs.max)} ms; CPU ${callers.cpuPercent}% of one core`);
  const lost = results.reduce((n, r) => n + r.lostTurns, 0);
  if (lost) lines.push(`caller utterances that never became a turn: ${lost}`);
  lines.push('');
  lines.push('targets:');
  for (const [k, v] of Object.entries(targets)) lines.push(`  ${k.padEnd(34)} target ${String(v.target).padStart(4)}  value ${String(v.value).padStart(8)}  ${v.met ? 'MET' : 'MISSED'}`);
  return { json, table: lines.join('\n') };
}
