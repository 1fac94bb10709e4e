// The scripted callers, as a child process: one ScriptedCaller (test/conversation/caller.ts,
// real time, 20 ms frames, optional echo path) per session, each running its scenario.
// A tap on the socket's send adds continuous background noise (and the playout echo model)
// to every microphone frame and records each frame's level, so the naive baseline can be
// replayed offline on exactly what the server heard. Latencies come from arrival times
// recorded as frames come in; false barge-ins are classified after the call.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ScriptedCaller } from '../../test/conversation/caller.js';
import { noise as unitNoise, rng, speak } from '../../test/native/corpus.js';
import { naiveBargeIns, type MicTrack } from './baseline.js';
import { PlayoutEcho } from './echo.js';
import { StallMonitor, type StallReport } from './stalls.js';
import { INTERRUPTIONS, PROMPTS, RATE_IN_HZ, RATE_OUT_HZ, type Background, type CallPlan, type Scenario } from './scenarios.js';

const epoch = (at: number) => Math.round(performance.timeOrigin + at);

export interface FalseBargeIn {
  /** When the `interrupted` frame arrived (epoch ms). */
  epochMs: number;
  /** ms since the agent's current run of audio frames began arriving. */
  intoRunMs: number | null;
  /** Longest gap between agent frames arriving, and between microphone frames sent, in the second before. */
  arrivalGapMs: number;
  micGapMs: number;
  heard: string;
}

export interface BargeIn {
  phrase: string;
  /** Speech onset (epoch ms). */
  epochMs: number;
  latencyMs: number | null;
  /** Longest gaps (as above) between the onset and the `interrupted` frame. */
  arrivalGapMs: number;
  micGapMs: number;
  /** Agent audio the call had carried before the onset (the echo detector learns during it), ms. */
  agentHeardMs: number;
  /** How long the answer being cut had been arriving at the onset, ms. */
  intoAnswerMs: number | null;
}

export interface CallerResult {
  sessionId: string;
  scenario: Scenario;
  /** Client side: `transcript` (user) arrival → first binary frame after it, ms. */
  answerLatencyMs: number[];
  /** Speech onset (first speech frame sent) → `interrupted` arrival, ms. */
  bargeLatencyMs: number[];
  bargeAttempts: number;
  bargeMissed: number;
  barges: BargeIn[];
  /** `interrupted` frames while the caller was silent. */
  falseInterruptions: number;
  falseDetail: FalseBargeIn[];
  /** `interrupted` frames caused by a caller prompt spoken over the agent (not barge-in attempts). */
  ownSpeechInterruptions: number;
  /** Time the agent's answers were audible at the caller (arrival runs + lead + echo tail), ms. */
  agentActiveMs: number;
  userTurns: number;
  /** Caller utterances that never became a user turn (endpointing or recognition failed). */
  lostTurns: number;
  /** The naive energy baseline replayed on this caller's microphone, per threshold. */
  baseline: ReturnType<typeof naiveBargeIns>;
  closeCode: number | null;
}

const FRAME_SAMPLES = RATE_IN_HZ / 50;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const clips = new Map<string, Int16Array>();
/**
 * espeak-ng speech at 16 kHz starting at its first audible sample (so a mark is the acoustic
 * onset). All clips are made before any call starts: espeak-ng and sox run synchronously, and a
 * stalled caller process would bunch its microphone frames and shift its echo path.
 */
function clip(text: string, voice: string): Int16Array {
  const key = `${voice}|${text}`;
  let c = clips.get(key);
  if (!c) {
    const pcm = speak(text, voice, RATE_IN_HZ);
    let first = 0;
    while (first < pcm.length && Math.abs(pcm[first]) < 300) first++;
    c = pcm.subarray(first);
    clips.set(key, c);
  }
  return c;
}
for (const [text, voice] of [...PROMPTS, ...INTERRUPTIONS]) clip(text, voice);

const unitNoises = new Map<string, Float32Array>();
function noiseSource(bg: Background, seed: number): () => Float32Array {
  let unit = unitNoises.get(bg.kind);
  if (!unit) {
    unit = unitNoise(bg.kind, RATE_IN_HZ * 10, RATE_IN_HZ, 99);
    unitNoises.set(bg.kind, unit);
  }
  const u = unit;
  const gain = 32768 * 10 ** (bg.levelDbfs / 20);
  let off = Math.floor(rng(seed)() * (u.length / FRAME_SAMPLES)) * FRAME_SAMPLES;
  const frame = new Float32Array(FRAME_SAMPLES);
  return () => {
    for (let i = 0; i < FRAME_SAMPLES; i++) frame[i] = u[(off + i) % u.length] * gain;
    off = (off + FRAME_SAMPLES) % u.length;
    return frame;
  };
}

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) return false;
    await sleep(5);
  }
  return true;
}

/** Longest gap between consecutive times (sorted) that touches [from, to]. */
function maxGap(times: number[], from: number, to: number): number {
  let lo = 0;
  let hi = times.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (times[mid] < from) lo = mid + 1;
    else hi = mid;
  }
  let gap = 0;
  for (let i = Math.max(1, lo); i < times.length && times[i - 1] <= to; i++) gap = Math.max(gap, Math.min(times[i], to) - times[i - 1]);
  return Math.round(gap);
}

class BenchCall {
  readonly caller: ScriptedCaller;
  readonly mic: MicTrack = { at: [], db: [] };
  /** Arrival time of every agent frame. */
  private readonly arrivals: number[] = [];
  private readonly interrupts: { at: number; heard: string }[] = [];
  /** Everything the caller said: mark name, length, whether it was a barge-in attempt. */
  private readonly spoken: { name: string; durMs: number; barge: string | null }[] = [];
  readonly result: CallerResult;
  private readonly r: () => number;
  private readonly playout: PlayoutEcho | null;
  private userCount = 0;
  private turnCompletes = 0;
  private userAt: number | null = null;
  private answerStartAt: number | null = null;
  /** The barge-in being made: its mark, and the `interrupted` arrival once it came. */
  private barge: { name: string; hitAt: number | null } | null = null;

  constructor(readonly plan: CallPlan) {
    this.r = rng(plan.seed);
    this.result = {
      sessionId: plan.sessionId,
      scenario: plan.scenario,
      answerLatencyMs: [],
      bargeLatencyMs: [],
      bargeAttempts: 0,
      bargeMissed: 0,
      barges: [],
      falseInterruptions: 0,
      falseDetail: [],
      ownSpeechInterruptions: 0,
      agentActiveMs: 0,
      userTurns: 0,
      lostTurns: 0,
      baseline: [],
      closeCode: null,
    };
    const caller = (this.caller = new ScriptedCaller(plan.url, RATE_IN_HZ, RATE_OUT_HZ));
    const s = plan.scenario;
    const echo = s.kind !== 'latency' ? s.echo : undefined;
    if (echo && echo.model !== 'playout') caller.enableEcho(echo.delayMs, echo.attenuationDb);
    this.playout = echo?.model === 'playout' ? new PlayoutEcho(echo) : null;
    const bg = s.kind !== 'latency' && s.noise ? noiseSource(s.noise, plan.seed) : null;
    // Microphone tap: background noise and the playout echo into every frame, then its level is recorded.
    const send = caller.ws.send.bind(caller.ws);
    caller.ws.send = ((data: unknown, ...rest: unknown[]) => {
      if (Buffer.isBuffer(data) && data.byteLength === FRAME_SAMPLES * 2) {
        const pcm = new Int16Array(data.buffer, data.byteOffset, FRAME_SAMPLES);
        const n = bg?.();
        const e = this.playout?.next();
        let energy = 0;
        for (let i = 0; i < FRAME_SAMPLES; i++) {
          const v = n || e ? Math.max(-32768, Math.min(32767, Math.round(pcm[i] + (n ? n[i] : 0) + (e ? e[i] : 0)))) : pcm[i];
          pcm[i] = v;
          energy += v * v;
        }
        this.mic.at.push(performance.now());
        this.mic.db.push(10 * Math.log10(energy / FRAME_SAMPLES / 32768 ** 2 + 1e-12));
      }
      return (send as (...a: unknown[]) => void)(data, ...rest);
    }) as typeof caller.ws.send;
    caller.ws.on('message', (_data, isBinary) => this.onMessage(isBinary));
  }

  private onMessage(isBinary: boolean): void {
    const c = this.caller;
    if (isBinary) {
      const { at, pcm } = c.audio[c.audio.length - 1];
      c.audio.length = 0; // arrival times are all we keep
      this.playout?.received(pcm);
      if (this.userAt !== null) {
        if (this.plan.scenario.kind === 'latency') this.result.answerLatencyMs.push(at - this.userAt);
        this.userAt = null;
      }
      this.answerStartAt ??= at;
      this.arrivals.push(at);
      return;
    }
    const { at, frame } = c.text[c.text.length - 1];
    if (frame.type === 'transcript' && frame.role === 'user') {
      this.userCount++;
      this.userAt = at;
      this.answerStartAt = null;
    } else if (frame.type === 'turn_complete') this.turnCompletes++;
    else if (frame.type === 'interrupted') {
      this.interrupts.push({ at, heard: String(frame.heard ?? '') });
      const b = this.barge;
      if (b && b.hitAt === null && c.marks.has(b.name)) b.hitAt = at;
    }
  }

  private say(pcm: Int16Array, barge: string | null): string {
    const name = `s${this.spoken.length}`;
    this.spoken.push({ name, durMs: pcm.length / 16, barge });
    this.caller.say(pcm, name);
    return name;
  }

  async run(deadline: number): Promise<void> {
    const c = this.caller;
    await c.start();
    await sleep(200 + this.r() * 1500);
    const s = this.plan.scenario;
    let k = 0;
    const prompt = () => {
      const [text, voice] = PROMPTS[k++ % PROMPTS.length];
      this.say(clip(text, voice), null);
    };
    const agentQuietFor = (ms: number) => () => {
      const last = this.arrivals[this.arrivals.length - 1];
      return last === undefined || performance.now() - last >= ms;
    };
    if (s.kind === 'latency') {
      while (performance.now() < deadline) {
        const users = this.userCount;
        const turns = this.turnCompletes;
        prompt();
        if (!(await until(() => this.userCount > users, 15_000))) {
          this.result.lostTurns++;
          continue;
        }
        await until(() => this.turnCompletes > turns, 15_000);
        await sleep(300 + this.r() * 500);
      }
    } else if (s.kind === 'barge') {
      let users = this.userCount;
      if (s.warmup) {
        // Hear one whole answer first: the echo detector learns the (absent) echo meanwhile.
        const turns = this.turnCompletes;
        prompt();
        await until(() => this.turnCompletes > turns, 60_000);
        await until(agentQuietFor(800), 10_000);
        users = this.userCount;
      }
      prompt();
      while (performance.now() < deadline) {
        if (!(await until(() => this.userCount > users && this.answerStartAt !== null, 15_000))) {
          this.result.lostTurns++;
          await until(agentQuietFor(800), 30_000);
          users = this.userCount;
          prompt();
          continue;
        }
        users = this.userCount;
        await sleep(400 + this.r() * 1600);
        const [text, voice] = INTERRUPTIONS[k++ % INTERRUPTIONS.length];
        const name = this.say(clip(text, voice), text);
        this.barge = { name, hitAt: null };
        this.result.bargeAttempts++;
        const hit = await until(() => this.barge?.hitAt != null, 3000);
        if (!hit) this.result.bargeMissed++;
        // The interruption becomes the caller's turn, and its answer the next one to cut.
        const turned = await until(() => this.userCount > users, 10_000);
        this.barge = null;
        if (!turned) {
          this.result.lostTurns++;
          await until(agentQuietFor(800), 30_000);
          users = this.userCount;
          prompt();
        }
      }
    } else {
      while (performance.now() < deadline) {
        // Speak only into silence: anything the agent says must be heard out.
        await until(agentQuietFor(800), 60_000);
        const users = this.userCount;
        prompt();
        if (!(await until(() => this.userCount > users, 20_000))) {
          this.result.lostTurns++;
          continue;
        }
        const turns = this.turnCompletes;
        const ints = this.interrupts.length;
        await until(() => this.turnCompletes > turns || this.interrupts.length > ints, 60_000);
        await sleep(700 + this.r() * 600);
      }
    }
  }

  async finish(): Promise<CallerResult> {
    const c = this.caller;
    c.hangUp();
    const closed = await Promise.race([c.closed, sleep(5000).then(() => null)]);
    if (!closed) c.close();
    c.stopSending();
    const s = this.plan.scenario;
    const res = this.result;

    // Runs of agent audio as it arrived; audible until the last frame, the pacing lead and the echo tail are over.
    const runs: [number, number][] = [];
    for (const at of this.arrivals) {
      const last = runs[runs.length - 1];
      if (last && at - last[1] < 100) last[1] = at;
      else runs.push([at, at]);
    }
    const tailMs = 80 + (s.kind !== 'latency' && s.echo ? s.echo.delayMs + 60 : 0);
    const active: [number, number][] = runs.map(([a, b]) => [a, b + 20 + tailMs]);
    res.agentActiveMs = active.reduce((n, [a, b]) => n + (b - a), 0);
    res.userTurns = this.userCount;

    // Each `interrupted`: a barge-in hit, the caller's own speech, or false (the caller was silent).
    const speech = this.spoken
      .map((sp) => ({ ...sp, at: c.marks.get(sp.name) }))
      .filter((sp): sp is typeof sp & { at: number } => sp.at !== undefined);
    const used = new Set<number>();
    for (const sp of speech.filter((x) => x.barge !== null)) {
      const i = this.interrupts.findIndex((x, j) => !used.has(j) && x.at >= sp.at && x.at <= sp.at + 3000);
      if (i >= 0) used.add(i);
      const latencyMs = i >= 0 ? this.interrupts[i].at - sp.at : null;
      if (latencyMs !== null) res.bargeLatencyMs.push(latencyMs);
      const to = i >= 0 ? this.interrupts[i].at : sp.at + 3000;
      const agentHeardMs = this.arrivals.filter((t) => t < sp.at).length * 20;
      const run = runs.filter(([a]) => a <= sp.at).pop();
      const intoAnswerMs = run ? Math.round(sp.at - run[0]) : null;
      res.barges.push({ phrase: sp.barge!, epochMs: epoch(sp.at), latencyMs: latencyMs === null ? null : Math.round(latencyMs * 10) / 10, arrivalGapMs: maxGap(this.arrivals, sp.at - 100, to), micGapMs: maxGap(this.mic.at, sp.at - 100, to), agentHeardMs, intoAnswerMs });
    }
    for (const [j, x] of this.interrupts.entries()) {
      if (used.has(j)) continue;
      if (speech.some((sp) => x.at >= sp.at && x.at <= sp.at + sp.durMs + 300)) {
        res.ownSpeechInterruptions++;
        continue;
      }
      res.falseInterruptions++;
      const run = runs.filter(([a]) => a <= x.at).pop();
      res.falseDetail.push({ epochMs: epoch(x.at), intoRunMs: run ? Math.round(x.at - run[0]) : null, arrivalGapMs: maxGap(this.arrivals, x.at - 1000, x.at), micGapMs: maxGap(this.mic.at, x.at - 1000, x.at), heard: x.heard });
    }
    res.baseline = naiveBargeIns(this.mic, active, speech.filter((x) => x.barge !== null));
    res.closeCode = closed?.code ?? null;
    return res;
  }
}

/** The callers' own event-loop delay: a stalled caller bunches its frames (harness check). */
const eld = monitorEventLoopDelay({ resolution: 1 });
export interface CallersReport {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  cpuPercent: number;
  stalls: StallReport;
}
const stalls = new StallMonitor();

async function runAll(plans: CallPlan[], durationMs: number): Promise<{ results: CallerResult[]; report: CallersReport }> {
  const calls = plans.map((p) => new BenchCall(p));
  await Promise.all(calls.map((c) => c.caller.opened));
  const deadline = performance.now() + durationMs;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  eld.enable();
  stalls.start();
  await Promise.all(calls.map((c) => c.run(deadline)));
  eld.disable();
  const stallReport = stalls.stop();
  const cpu = process.cpuUsage(cpu0);
  const cpuPercent = Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 1000) / 10;
  const results = await Promise.all(calls.map((c) => c.finish()));
  return { results, report: { eventLoopDelayMs: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 }, cpuPercent, stalls: stallReport } };
}

process.on('message', (m: { cmd: string; plans?: CallPlan[]; durationMs?: number }) => {
  if (m.cmd === 'start') {
    runAll(m.plans!, m.durationMs!).then(
      ({ results, report }) => process.send!({ type: 'done', results, report }),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  } else if (m.cmd === 'exit') process.exit(0);
});
process.send!({ type: 'ready' });
