// The evaluation set's callers (bench/turns/eval-set.ts), as a child process: each slot places
// its calls one after the other, all slots side by side. A call is one caller on one line:
// its microphone sends a 20 ms frame every 20 ms in real time (its speech, the line's noise
// and floor, and the echo of what its loudspeaker played), over the web socket (PCM16 16 kHz
// binary frames) or a Twilio media stream (`connected`, `start`, then μ-law 8 kHz `media` JSON).
// The loudspeaker plays what arrives, one frame per microphone frame, and drops what it holds
// on `interrupted` (web) or `clear` (carrier). Everything is timed here (epoch ms); the
// orchestrator classifies after the run (bench/turns/eval-summary.ts).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import WebSocket from 'ws';
import { MULAW_DECODE, mulawEncode } from '../media/mulaw.js';
import { EchoPath, FRAME_MS, NoiseSource, noiseLoop, rng, utterance, type NoiseKind, type Utterance } from './eval-audio.js';
import { FLOOR_DBFS, MATERIAL, NOISE_DBFS, PATH_RATE_HZ, SENTENCE_PAUSE_MS, type EvalCall, type Half, type Path, type Step } from './eval-set.js';
import { StallMonitor, type StallReport } from './stalls.js';

const nowEpoch = () => Math.round((performance.timeOrigin + performance.now()) * 10) / 10;
const toEpoch = (t: number) => Math.round((performance.timeOrigin + t) * 10) / 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
/** A gap this long between agent frames arriving ends one agent utterance (run). */
const RUN_GAP_MS = 400;
const NOISE_LOOP_S = 30;

/** Where a call connects: the web socket URL, or the carrier route and what its `start` carries. */
export interface EvalTarget {
  call: EvalCall;
  url: string;
  carrier?: { sessionId: string; token: string; accountSid: string; callSid: string };
}

/** Something the caller said, timed at the frames that carried it (epoch ms). */
export interface Said {
  kind: 'barge' | 'prompt' | 'pause';
  step: number;
  text: string;
  onsetClass?: string;
  window?: 'first300' | 'mid';
  offsetMs?: number;
  /** Barge: the agent utterance it cut into (the start of its run, epoch). */
  utteranceAt?: number;
  /** First frame sent; the frame carrying the speech onset (first within 20 dB of its level); its last speech frame; its last frame. */
  startAt: number;
  onsetAt: number;
  endAt: number;
  doneAt: number;
  /** Pause sentences: the pause's first and last silent frames sent. */
  pauseFrom?: number;
  pauseTo?: number;
}

export interface EvalCallResult {
  id: string;
  sessionId: string;
  half: Half;
  path: Path;
  role: EvalCall['role'];
  direction: EvalCall['direction'];
  /** Agent utterances as they arrived: [first frame, last frame] (epoch), frames. */
  runs: [number, number, number][];
  /** `interrupted` (web) or `clear` (carrier) arrivals (epoch). */
  interrupts: number[];
  said: Said[];
  /** Steps that found no agent utterance to act on (even after a prompt), or came after the call was given up. */
  skipped: number[];
  /** Given up: the agent said nothing for three steps in a row. */
  abandoned?: boolean;
  connectedAt: number;
  endedAt: number;
  closeCode: number | null;
  error?: string;
}

// ------------------------------------------------------------------ audio material per call

interface CallAudio {
  prompts: Utterance[];
  barge: Map<string, Utterance>;
  pauses: Map<string, Utterance>;
}

const noiseLoops = new Map<string, Float32Array>();
function loopFor(kind: NoiseKind | 'floor', half: Half, rateHz: number): Float32Array {
  const key = `${kind}|${half}|${rateHz}`;
  let l = noiseLoops.get(key);
  if (!l) {
    const seed = (half === 'heldout' ? 7001 : 3001) + ['floor', 'white', 'pink', 'babble', 'street', 'music'].indexOf(kind);
    l = noiseLoop(kind === 'floor' ? 'white' : kind, NOISE_LOOP_S * rateHz, rateHz, seed, MATERIAL[half].babble);
    noiseLoops.set(key, l);
  }
  return l;
}

const audioCache = new Map<string, CallAudio>();
function audioFor(call: EvalCall): CallAudio {
  let a = audioCache.get(call.id);
  if (!a) {
    a = buildAudio(call);
    audioCache.set(call.id, a);
  }
  return a;
}

function buildAudio(call: EvalCall): CallAudio {
  const rate = PATH_RATE_HZ[call.path];
  const { voice, pitch, speed, levelDbfs } = call.caller;
  const barge = new Map<string, Utterance>();
  const pauses = new Map<string, Utterance>();
  for (const s of call.steps) {
    if (s.do === 'barge' && !barge.has(s.text.text)) barge.set(s.text.text, utterance([s.text.text], voice, rate, pitch, speed, levelDbfs));
    if (s.do === 'pause') pauses.set(s.parts.join('|'), utterance(s.parts, voice, rate, pitch, speed, levelDbfs, SENTENCE_PAUSE_MS));
  }
  return { prompts: call.prompts.map((p) => utterance([p], voice, rate, pitch, speed, levelDbfs)), barge, pauses };
}

// ------------------------------------------------------------------ one call

class EvalLine {
  readonly rate: number;
  readonly fs: number;
  private ws!: WebSocket;
  private readonly mic: Float32Array;
  private readonly out: Int16Array;
  private readonly law: Uint8Array;
  private readonly played: Int16Array;
  /** Received agent audio not yet played (a ring). */
  private fifo = new Int16Array(16000 * 4);
  private fifoHead = 0;
  private fifoLen = 0;
  private readonly echo: EchoPath | null;
  private readonly noise: NoiseSource | null;
  private readonly floor: NoiseSource;
  private readonly queue: { u: Utterance; rec: Said; frame: number }[] = [];
  next = 0;
  open = false;
  private seq = 0;
  private readonly streamSid: string;
  private lastArrival = -Infinity;
  readonly result: EvalCallResult;
  /** Runs as performance.now() times, for the script. */
  readonly runsLocal: [number, number][] = [];
  private closed!: Promise<void>;

  constructor(readonly target: EvalTarget, readonly audio: CallAudio) {
    const call = target.call;
    this.rate = PATH_RATE_HZ[call.path];
    this.fs = (this.rate * FRAME_MS) / 1000;
    this.mic = new Float32Array(this.fs);
    this.out = new Int16Array(this.fs);
    this.law = new Uint8Array(this.fs);
    this.played = new Int16Array(this.fs);
    this.echo = call.line.kind === 'echo' ? new EchoPath(call.line.echo, this.rate, call.seed ^ 0xec40) : null;
    this.noise = call.line.kind === 'noise' ? new NoiseSource(loopFor(call.line.noise, call.half, this.rate), NOISE_DBFS, call.seed ^ 0x7015e) : null;
    this.floor = new NoiseSource(loopFor('floor', call.half, this.rate), FLOOR_DBFS, call.seed ^ 0xf1002);
    this.streamSid = `MZ${call.seed.toString(16).padStart(32, '0')}`;
    this.result = {
      id: call.id,
      sessionId: target.carrier?.sessionId ?? (/sessions\/([^/]+)\/stream/.exec(target.url)?.[1] ?? ''),
      half: call.half,
      path: call.path,
      role: call.role,
      direction: call.direction,
      runs: [],
      interrupts: [],
      said: [],
      skipped: [],
      connectedAt: 0,
      endedAt: 0,
      closeCode: null,
    };
  }

  async connect(): Promise<void> {
    this.ws = new WebSocket(this.target.url, { perMessageDeflate: false });
    this.ws.binaryType = 'nodebuffer';
    this.ws.on('error', () => {});
    this.closed = new Promise((r) =>
      this.ws.once('close', (code) => {
        this.result.closeCode = code;
        this.open = false;
        r();
      }),
    );
    await new Promise<void>((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('error', reject);
    });
    this.ws.on('message', (data: Buffer, isBinary) => this.onMessage(data, isBinary));
    const c = this.target.carrier;
    if (c) {
      this.ws.send(JSON.stringify({ event: 'connected', protocol: 'Call', version: '1.0.0' }));
      this.ws.send(
        JSON.stringify({
          event: 'start',
          sequenceNumber: String(++this.seq),
          start: { accountSid: c.accountSid, streamSid: this.streamSid, callSid: c.callSid, tracks: ['inbound'], customParameters: { session_id: c.sessionId, token: c.token }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
          streamSid: this.streamSid,
        }),
      );
    }
    this.result.connectedAt = nowEpoch();
    this.open = true;
    this.next = performance.now();
  }

  private onMessage(data: Buffer, isBinary: boolean): void {
    const at = performance.now();
    if (isBinary) {
      const pcm = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
      this.agentAudio(pcm, at);
      return;
    }
    let m: Record<string, unknown>;
    try {
      m = JSON.parse(data.toString()) as Record<string, unknown>;
    } catch {
      return;
    }
    if (this.target.carrier) {
      if (m.event === 'media') {
        const b = Buffer.from(String((m.media as { payload?: string }).payload ?? ''), 'base64');
        const pcm = new Int16Array(b.length);
        for (let i = 0; i < b.length; i++) pcm[i] = MULAW_DECODE[b[i]];
        this.agentAudio(pcm, at);
      } else if (m.event === 'clear') this.interrupted(at);
    } else if (m.type === 'interrupted') this.interrupted(at);
  }

  private agentAudio(pcm: Int16Array, at: number): void {
    if (at - this.lastArrival > RUN_GAP_MS) {
      this.runsLocal.push([at, at]);
      this.result.runs.push([toEpoch(at), toEpoch(at), 0]);
    }
    this.lastArrival = at;
    this.runsLocal[this.runsLocal.length - 1][1] = at;
    const r = this.result.runs[this.result.runs.length - 1];
    r[1] = toEpoch(at);
    r[2]++;
    // The loudspeaker's queue.
    const cap = this.fifo.length;
    for (let i = 0; i < pcm.length; i++) {
      if (this.fifoLen === cap) break;
      this.fifo[(this.fifoHead + this.fifoLen) % cap] = pcm[i];
      this.fifoLen++;
    }
  }

  private interrupted(at: number): void {
    this.result.interrupts.push(toEpoch(at));
    // The phone (Twilio) or the client drops what it buffered.
    this.fifoLen = 0;
  }

  /** Milliseconds since the last agent frame arrived. */
  quietMs(now = performance.now()): number {
    return now - this.lastArrival;
  }

  say(u: Utterance, rec: Omit<Said, 'startAt' | 'onsetAt' | 'endAt' | 'doneAt'>): Said {
    const full: Said = { ...rec, startAt: 0, onsetAt: 0, endAt: 0, doneAt: 0 };
    this.queue.push({ u, rec: full, frame: 0 });
    this.result.said.push(full);
    return full;
  }

  /** True while something is queued or being said. */
  get speaking(): boolean {
    return this.queue.length > 0;
  }

  /** One microphone frame, due now. */
  sendFrame(): void {
    if (!this.open || this.ws.readyState !== WebSocket.OPEN) return;
    const mic = this.mic;
    const fs = this.fs;
    mic.fill(0);
    const cur = this.queue[0];
    if (cur) {
      const { u, rec } = cur;
      const f = cur.frame;
      const base = f * fs;
      for (let i = 0; i < fs && base + i < u.pcm.length; i++) mic[i] = u.pcm[base + i];
      const at = nowEpoch();
      if (f === 0) rec.startAt = at;
      if (f === u.onsetFrame) rec.onsetAt = at;
      if (f === u.endFrame) rec.endAt = at;
      if (u.pause && f === u.pause.fromFrame) rec.pauseFrom = at;
      if (u.pause && f === u.pause.toFrame - 1) rec.pauseTo = at;
      cur.frame++;
      if (cur.frame * fs >= u.pcm.length) {
        rec.doneAt = at;
        this.queue.shift();
      }
    }
    this.noise?.addTo(mic);
    this.floor.addTo(mic);
    if (this.echo) {
      // The loudspeaker plays one frame (silence if nothing is queued); its echo comes back.
      const p = this.played;
      const cap = this.fifo.length;
      const take = Math.min(fs, this.fifoLen);
      for (let i = 0; i < take; i++) p[i] = this.fifo[(this.fifoHead + i) % cap];
      p.fill(0, take);
      this.fifoHead = (this.fifoHead + take) % cap;
      this.fifoLen -= take;
      this.echo.process(p, mic);
    } else {
      // Played, not echoed.
      const take = Math.min(fs, this.fifoLen);
      this.fifoHead = (this.fifoHead + take) % this.fifo.length;
      this.fifoLen -= take;
    }
    const out = this.out;
    for (let i = 0; i < fs; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(mic[i])));
    if (this.target.carrier) {
      mulawEncode(out, this.law);
      const n = ++this.seq;
      this.ws.send(
        `{"event":"media","sequenceNumber":"${n}","media":{"track":"inbound","chunk":"${n}","timestamp":"${n * 20}","payload":"${Buffer.from(this.law.buffer, 0, fs).toString('base64')}"},"streamSid":"${this.streamSid}"}`,
      );
    } else this.ws.send(Buffer.from(out.buffer, 0, fs * 2));
  }

  async hangUp(): Promise<void> {
    this.result.endedAt = nowEpoch();
    if (this.ws.readyState === WebSocket.OPEN) {
      if (this.target.carrier) this.ws.send(JSON.stringify({ event: 'stop', sequenceNumber: String(++this.seq), stop: { accountSid: this.target.carrier.accountSid, callSid: this.target.carrier.callSid }, streamSid: this.streamSid }));
      else this.ws.send(JSON.stringify({ type: 'stop' }));
    }
    const closed = await Promise.race([this.closed.then(() => true), sleep(4000).then(() => false)]);
    if (!closed) this.ws.terminate();
    this.open = false;
  }
}

// ------------------------------------------------------------------ the microphone clock

const lines = new Set<EvalLine>();
let clock: NodeJS.Timeout | null = null;
function runClock(): void {
  const now = performance.now();
  let earliest = Infinity;
  for (const l of lines) {
    // Catch up after a late timer so each line keeps real time.
    while (l.open && l.next <= now + 1) {
      l.sendFrame();
      l.next += FRAME_MS;
    }
    earliest = Math.min(earliest, l.next);
  }
  clock = setTimeout(runClock, Math.max(1, Math.min(20, earliest - performance.now())));
}

// ------------------------------------------------------------------ scripts

async function until(cond: () => boolean, timeoutMs: number): Promise<boolean> {
  const end = performance.now() + timeoutMs;
  while (!cond()) {
    if (performance.now() > end) return false;
    await sleep(5);
  }
  return true;
}

class Script {
  /** Runs (agent utterances) already acted on. */
  private seen = 0;
  private p = 0;
  private readonly r: () => number;

  constructor(private readonly line: EvalLine) {
    this.r = rng(line.target.call.seed ^ 0x5c1);
  }

  /** The next agent utterance to start arriving, after those seen; null on timeout. */
  private async nextRun(timeoutMs: number): Promise<number | null> {
    const l = this.line;
    if (!(await until(() => l.runsLocal.length > this.seen || !l.open, timeoutMs)) || !l.open) return null;
    const i = this.seen;
    this.seen = i + 1;
    return i;
  }

  private async quiet(ms: number, timeoutMs: number): Promise<boolean> {
    return until(() => this.line.quietMs() >= ms || !this.line.open, timeoutMs);
  }

  private async spoken(rec: Said): Promise<void> {
    await until(() => rec.doneAt > 0 || !this.line.open, 30_000);
  }

  private prompt(step: number): Said {
    const a = this.line.audio;
    const i = this.p++ % a.prompts.length;
    return this.line.say(a.prompts[i], { kind: 'prompt', step, text: this.line.target.call.prompts[i] });
  }

  /** A run to act on: the next one, or, when none comes, one answering a prompt said into the silence. */
  private async runToActOn(step: number): Promise<number | null> {
    // Utterances that began before this step (more than 150 ms ago) are not the next one.
    const l = this.line;
    const now = performance.now();
    while (this.seen < l.runsLocal.length && now - l.runsLocal[this.seen][0] > 150) this.seen++;
    const run = await this.nextRun(8000);
    if (run !== null || !this.line.open) return run;
    const said = this.prompt(step);
    await this.spoken(said);
    this.seen = this.line.runsLocal.length;
    return this.nextRun(8000);
  }

  async trials(steps: Step[]): Promise<void> {
    const l = this.line;
    let skippedInARow = 0;
    for (const [i, step] of steps.entries()) {
      if (!l.open) return;
      // The agent has not spoken for three steps, prompts included (its turn-taking is stuck,
      // e.g. a noise the VAD takes for speech holds the caller's turn open): give up the call.
      if (skippedInARow >= 3) {
        l.result.skipped.push(i);
        l.result.abandoned = true;
        continue;
      }
      if (step.do !== 'pause') skippedInARow++;
      if (step.do === 'barge') {
        const run = await this.runToActOn(i);
        if (run === null) {
          l.result.skipped.push(i);
          continue;
        }
        skippedInARow = 0;
        const start = l.runsLocal[run][0];
        await sleep(start + step.offsetMs - performance.now());
        const said = l.say(l.audio.barge.get(step.text.text)!, { kind: 'barge', step: i, text: step.text.text, onsetClass: step.text.onset, window: step.window, offsetMs: step.offsetMs, utteranceAt: toEpoch(start) });
        await this.spoken(said);
      } else if (step.do === 'listen') {
        const run = await this.runToActOn(i);
        if (run === null) {
          l.result.skipped.push(i);
          continue;
        }
        skippedInARow = 0;
        await this.quiet(700, 40_000);
      } else {
        await this.quiet(step.quietMs, 40_000);
        this.seen = l.runsLocal.length;
        const said = l.say(l.audio.pauses.get(step.parts.join('|'))!, { kind: 'pause', step: i, text: step.parts.join(' … ') });
        await this.spoken(said);
        // An answer that began during the sentence (its pause ended the turn) is not the next one to act on.
        this.seen = l.runsLocal.length;
      }
    }
    // The answer to the last cut-in starts; then hang up.
    if (!l.result.abandoned) await this.nextRun(4000);
    await sleep(300);
  }

  async listener(durationMs: number): Promise<void> {
    const l = this.line;
    const end = performance.now() + durationMs;
    let step = 0;
    // The greeting first.
    await this.nextRun(5000);
    while (l.open && performance.now() < end) {
      await this.quiet(1000 + 400 * this.r(), 60_000);
      if (performance.now() >= end) break;
      this.seen = l.runsLocal.length;
      const said = this.prompt(step++);
      await this.spoken(said);
      if ((await this.nextRun(10_000)) === null) continue;
      await this.quiet(900, 60_000);
    }
  }
}

async function runCall(target: EvalTarget): Promise<EvalCallResult> {
  const line = new EvalLine(target, audioFor(target.call));
  try {
    await line.connect();
    lines.add(line);
    const script = new Script(line);
    if (target.call.role === 'trials') await script.trials(target.call.steps);
    else await script.listener(target.call.durationMs);
    await line.hangUp();
  } catch (err) {
    line.result.error = String(err);
    line.result.endedAt ||= nowEpoch();
  } finally {
    lines.delete(line);
  }
  return line.result;
}

// ------------------------------------------------------------------ the process

export interface EvalCallersReport {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  cpuPercent: number;
  stalls: StallReport;
}

/** Builds every call's clips and the noise loops now (espeak-ng and sox run synchronously). */
function prepare(calls: EvalCall[]): void {
  for (const c of calls) {
    audioFor(c);
    if (c.line.kind === 'noise') loopFor(c.line.noise, c.half, PATH_RATE_HZ[c.path]);
    loopFor('floor', c.half, PATH_RATE_HZ[c.path]);
  }
}

const eld = monitorEventLoopDelay({ resolution: 1 });
const monitor = new StallMonitor();

async function runSlots(slots: EvalTarget[][]): Promise<{ results: EvalCallResult[]; report: EvalCallersReport }> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  eld.reset();
  eld.enable();
  monitor.start();
  if (!clock) runClock();
  const results: EvalCallResult[] = [];
  await Promise.all(
    slots.map(async (slot, k) => {
      // Stagger the slots' first calls over 2 s.
      await sleep((2000 * k) / slots.length);
      for (const t of slot) results.push(await runCall(t));
    }),
  );
  eld.disable();
  const stalls = monitor.stop();
  const cpu = process.cpuUsage(cpu0);
  const cpuPercent = Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - t0)) * 1000) / 10;
  return { results, report: { eventLoopDelayMs: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 }, cpuPercent, stalls } };
}

process.on('message', (m: { cmd: string; calls?: EvalCall[]; slots?: EvalTarget[][] }) => {
  if (m.cmd === 'prepare') {
    prepare(m.calls!);
    process.send!({ type: 'prepared' });
  } else if (m.cmd === 'run') {
    runSlots(m.slots!).then(
      ({ results, report }) => process.send!({ type: 'done', results, report }),
      (err) => {
        console.error(err);
        process.exit(1);
      },
    );
  } else if (m.cmd === 'exit') {
    if (clock) clearTimeout(clock);
    process.exit(0);
  }
});
process.send!({ type: 'ready' });
