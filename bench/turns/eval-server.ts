// The media node of the evaluation phases (bench/turns/eval.ts), as a child process: the real
// media socket with the Twilio Media Streams route, running agent calls (the cascade engine)
// with instant in-process providers. Besides CPU and event-loop figures it logs, per session,
// what the engine did and when (epoch ms): every agent turn as it starts (its kind: greeting,
// answer, reminder...), every VAD and barge-in detector event the engine was handed (with
// whether the agent was audible), every `interrupted` / `clear` it sent, and every STT commit.
// On command it stalls its own event loop at random intervals (the `stalls` load variant).
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { MediaChannel } from '../../src/audio/native.js';
import { loadConfig } from '../../src/config/env.js';
import { createContext } from '../../src/context.js';
import { CascadeCall, type AdapterFactory, type InterruptionOptions } from '../../src/conversation/index.js';
import { Phrases } from '../../src/conversation/phrases.js';
import { twilioStreamRoute } from '../../src/media/twilio-stream-route.js';
import { SentenceSplitter } from '../../src/providers/llm/sentences.js';
import { DEFAULT_ENDPOINTING_MS } from '../../src/providers/registry.js';
import { AsyncQueue } from '../../src/providers/realtime/queue.js';
import type { LlmAdapter, LlmEvent, LlmRequest, SttAdapter, SttEvent, SttOpenOptions, SttSession, TtsAdapter, TtsRequest } from '../../src/providers/types.js';
import { startMediaNode } from '../../src/roles/media.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { synth } from './eval-audio.js';
import { recordTape } from './channel-tape.js';
import { HALVES, MATERIAL, type Half } from './eval-set.js';
import { StallInjector, StallMonitor, type StallReport } from './stalls.js';

/** The fake TTS speaks at this rate; the engine resamples to the session's rate. */
const TTS_RATE_HZ = 16000;
const epoch = (t: number) => Math.round((performance.timeOrigin + t) * 10) / 10;

/** Per-session logs: [sessionId, epochMs, ...]. */
export interface EvalServerLog {
  /** Agent turn started (its first frame taken for sending): kind. */
  turns: [string, number, string][];
  /** Channel events the engine was handed: bits (1 speech start, 2 speech end, 4 barge-in detector fired, 8 its end), agent audible (0/1), barge-in taken by the shell (0/1). */
  events: [string, number, number, number, number][];
  /** `interrupted` control frames and `clear` (clearPlayback) the engine sent. */
  sent: [string, number, 'interrupted' | 'clear'][];
  /** STT commits: the utterance had speech for the fake recogniser (1) or not (0). */
  commits: [string, number, number][];
}

export interface EvalServerReport {
  log: EvalServerLog;
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  cpuMs: number;
  wallMs: number;
  stalls: StallReport;
  injected: { epochMs: number; ms: number }[];
}

const log: EvalServerLog = { turns: [], events: [], sent: [], commits: [] };
const sessionOf = new WeakMap<AbortSignal, string>();

/**
 * Utterance STT (`streaming: false`): commit() returns a fixed final at once, or nothing when the
 * utterance had no speech. A 20 ms frame is speech when 10 dB above the running noise floor
 * (tracked per session: falls at once, rises 2.5 dB/s) and above -55 dBFS, so quiet callers
 * are heard and a steady noise bed is not; 8 such frames make words.
 */
class EvalSttSession implements SttSession {
  private readonly queue = new AsyncQueue<SttEvent>(() => this.close());
  private speechFrames = 0;
  private energy = 0;
  private fill = 0;
  private floorDb = -60;

  constructor(private readonly frameSamples: number, private readonly sessionId: string) {}

  write(pcm: Int16Array): void {
    for (let i = 0; i < pcm.length; i++) {
      this.energy += pcm[i] * pcm[i];
      if (++this.fill === this.frameSamples) {
        const db = 10 * Math.log10(this.energy / this.frameSamples / 32768 ** 2 + 1e-12);
        this.floorDb = db < this.floorDb ? db : this.floorDb + 0.05;
        if (db > this.floorDb + 10 && db > -55) this.speechFrames++;
        this.energy = 0;
        this.fill = 0;
      }
    }
  }

  commit(): void {
    const heard = this.speechFrames >= 8;
    this.speechFrames = 0;
    log.commits.push([this.sessionId, epoch(performance.now()), heard ? 1 : 0]);
    this.queue.push({ type: 'final', text: heard ? 'I have a question about my order' : '', speechFinal: true });
  }

  async finish(): Promise<void> {
    this.queue.end();
  }

  close(): void {
    this.queue.end();
  }

  [Symbol.asyncIterator](): AsyncIterator<SttEvent> {
    return this.queue[Symbol.asyncIterator]();
  }
}

class EvalStt implements SttAdapter {
  readonly provider = 'bench';
  readonly streaming = false;
  async open(o: SttOpenOptions): Promise<SttSession> {
    return new EvalSttSession(o.sampleRateHz / 50, sessionOf.get(o.signal) ?? 'unknown');
  }
}

/** The agent's prompt says which answers: `BENCH:eval:<half>:<medium|long>`; medium answers take turns. */
class EvalLlm implements LlmAdapter {
  readonly provider = 'bench';
  readonly model = 'instant';
  async *stream(req: LlmRequest): AsyncGenerator<LlmEvent, void, undefined> {
    const system = req.messages[0]?.role === 'system' ? req.messages[0].content : '';
    const [, , half, kind] = system.split(':') as [string, string, Half, string];
    const m = MATERIAL[half] ?? MATERIAL.tuning;
    const users = req.messages.filter((x) => x.role === 'user').length;
    yield { type: 'text', text: kind === 'long' ? m.long : m.medium[users % m.medium.length] };
    yield { type: 'end', finishReason: 'stop', usage: { inputTokens: 1, outputTokens: 1 } };
  }
}

/** Real espeak-ng speech of the agent's voice, synthesized at start, one chunk per sentence. */
class EvalTts implements TtsAdapter {
  readonly provider = 'bench';
  private readonly clips = new Map<string, Int16Array>();
  outputSampleRateHz(): number {
    return TTS_RATE_HZ;
  }
  clip(text: string, voice: string): Int16Array {
    const key = `${voice}|${text}`;
    let pcm = this.clips.get(key);
    if (!pcm) {
      pcm = synth(text, voice, TTS_RATE_HZ);
      this.clips.set(key, pcm);
    }
    return pcm;
  }
  async *synthesize(req: TtsRequest): AsyncGenerator<Int16Array, void, undefined> {
    yield this.clip(req.text, req.voice);
  }
}

const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', MEDIA_PIPELINE: 'agent' });
const ctx = await createContext(config, {
  log: createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent'),
  keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]),
  redisPrefix: process.env.BENCH_REDIS_PREFIX!,
});

const tts = new EvalTts();
// Everything the agents will say, synthesized now, so no call waits on espeak-ng.
for (const half of HALVES) {
  const m = MATERIAL[half];
  for (const text of [m.long, ...m.medium]) {
    const splitter = new SentenceSplitter({ minChars: 2 });
    for (const s of [...splitter.push(text), splitter.flush()]) if (s) tts.clip(s, m.agentVoice);
  }
  for (const p of [m.greeting, ...Object.values(Phrases)]) tts.clip(p, m.agentVoice);
}
const stt = new EvalStt();
const llm = new EvalLlm();
const factory: AdapterFactory = (stages) => ({
  stt: { adapter: stt, endpointingMs: stages.stt?.endpointing_ms ?? DEFAULT_ENDPOINTING_MS },
  llm: { adapter: llm },
  tts: { adapter: tts, model: 'instant', voice: stages.tts?.voice ?? MATERIAL.tuning.agentVoice },
});

interface Hookable {
  config?: { sessionId?: string };
  shell: { signal: AbortSignal; line: { channel: MediaChannel }; send(frame: { type: string }): void; clearPlayback(): void };
  turnStarted(turn: { kind: string }): void;
  hear(f: { events: number; now: number; agentAudible: boolean; bargeIn: boolean }): void;
}

/** BENCH_TAPES=dir: every call's barge-in input on tape there, `<session id>.tape` (channel-tape.ts). */
const TAPES = process.env.BENCH_TAPES;
if (TAPES) mkdirSync(TAPES, { recursive: true });  // a missing directory failed the whole run at its first call
const interruption = process.env.BENCH_INTERRUPTION ? (JSON.parse(process.env.BENCH_INTERRUPTION) as Partial<InterruptionOptions>) : undefined;
const nodeId = randomUUID();
const server = await startMediaNode(ctx, {
  port: 0,
  host: '127.0.0.1',
  nodeId,
  routes: [twilioStreamRoute(ctx, nodeId)],
  pipeline: 'agent',
  conversation: {
    adapterFactory: factory,
    interruption,
    created: (call) => {
      if (!(call instanceof CascadeCall)) return;
      const c = call as unknown as Hookable;
      const sid = c.config?.sessionId ?? 'unknown';
      sessionOf.set(c.shell.signal, sid);
      if (TAPES) {
        const tape = recordTape(c.shell.line.channel, join(TAPES, `${sid}.tape`), () => epoch(performance.now()));
        c.shell.signal.addEventListener('abort', () => tape.end());
      }
      const turnStarted = c.turnStarted.bind(call);
      c.turnStarted = (turn) => {
        log.turns.push([sid, epoch(performance.now()), turn.kind]);
        turnStarted(turn);
      };
      const hear = c.hear.bind(call);
      c.hear = (f) => {
        if (f.events & 15) log.events.push([sid, epoch(f.now), f.events, f.agentAudible ? 1 : 0, f.bargeIn ? 1 : 0]);
        hear(f);
      };
      const shell = c.shell;
      const send = shell.send.bind(shell);
      shell.send = (frame) => {
        if (frame.type === 'interrupted') log.sent.push([sid, epoch(performance.now()), 'interrupted']);
        send(frame);
      };
      const clear = shell.clearPlayback.bind(shell);
      shell.clearPlayback = () => {
        log.sent.push([sid, epoch(performance.now()), 'clear']);
        clear();
      };
    },
  },
});

const eld = monitorEventLoopDelay({ resolution: 1 });
const monitor = new StallMonitor();
let injector: StallInjector | null = null;
let cpu0 = process.cpuUsage();
let wall0 = performance.now();

process.on('message', (m: { cmd: string; seed?: number }) => {
  if (m.cmd === 'measure-start') {
    eld.reset();
    eld.enable();
    monitor.start();
    cpu0 = process.cpuUsage();
    wall0 = performance.now();
  } else if (m.cmd === 'stalls') {
    // The `stalls` load variant: 50-200 ms every 0.5-3 s.
    injector = new StallInjector(m.seed ?? 1, { minMs: 50, maxMs: 200, gapMinMs: 500, gapMaxMs: 3000 });
    injector.start();
  } else if (m.cmd === 'report') {
    injector?.stop();
    eld.disable();
    const c = process.cpuUsage(cpu0);
    const report: EvalServerReport = {
      log,
      eventLoopDelayMs: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
      cpuMs: (c.user + c.system) / 1000,
      wallMs: performance.now() - wall0,
      stalls: monitor.stop(),
      injected: injector?.injected ?? [],
    };
    process.send!({ type: 'report', report });
  } else if (m.cmd === 'exit') {
    void server.drain(0).then(async () => {
      await ctx.sql.end({ timeout: 2 });
      ctx.redis.disconnect();
      process.exit(0);
    });
  }
});
process.send!({ type: 'ready', port: server.port });
