// The media node under test, as a child process: the real media socket running agent calls
// (the cascade engine) with instant in-process providers. Reports the engine's own answer
// latency probe (CascadeCall.onAnswerLatency), event-loop delay and CPU over IPC.
import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { loadConfig } from '../../src/config/env.js';
import { createContext } from '../../src/context.js';
import { CascadeCall, type InterruptionOptions } from '../../src/conversation/index.js';
import { Phrases } from '../../src/conversation/phrases.js';
import { SentenceSplitter } from '../../src/providers/llm/sentences.js';
import { startMediaNode } from '../../src/roles/media.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { benchAdapters } from './fakes.js';
import { StallMonitor, type StallReport } from './stalls.js';
import { LONG_ANSWER, RATE_OUT_HZ, SHORT_ANSWER } from './scenarios.js';

export interface AnswerSample {
  sessionId: string;
  ms: number;
}

export interface ServerReport {
  answers: AnswerSample[];
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  cpuMs: number;
  wallMs: number;
  stalls: StallReport;
}

const config = loadConfig({ ...process.env, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', MEDIA_PIPELINE: 'agent' });
const ctx = await createContext(config, {
  log: createLogger(process.env.BENCH_LOG_LEVEL ?? 'silent'),
  keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]),
  redisPrefix: process.env.BENCH_REDIS_PREFIX!,
});

const { factory, tts } = benchAdapters({ streamingStt: process.env.BENCH_STT === 'streaming', rateOutHz: RATE_OUT_HZ });
// Synthesize every sentence the fakes will be asked for now, so no call waits on espeak-ng.
for (const answer of [SHORT_ANSWER, LONG_ANSWER]) {
  const splitter = new SentenceSplitter({ minChars: 2 });
  for (const s of [...splitter.push(answer), splitter.flush()]) if (s) tts.clip(s);
}
for (const p of Object.values(Phrases)) tts.clip(p);

const interruption = process.env.BENCH_INTERRUPTION ? (JSON.parse(process.env.BENCH_INTERRUPTION) as Partial<InterruptionOptions>) : undefined;
const answers: AnswerSample[] = [];
const server = await startMediaNode(ctx, {
  port: 0,
  host: '127.0.0.1',
  pipeline: 'agent',
  conversation: {
    adapterFactory: factory,
    interruption,
    created: (call) => {
      if (!(call instanceof CascadeCall)) return;
      // The session id only tags the samples (which scenario they belong to).
      const sessionId = (call as unknown as { config?: { sessionId?: string } }).config?.sessionId ?? 'unknown';
      call.onAnswerLatency = (ms) => answers.push({ sessionId, ms });
    },
  },
});

const eld = monitorEventLoopDelay({ resolution: 1 });
const stalls = new StallMonitor();
let cpu0 = process.cpuUsage();
let wall0 = performance.now();

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'measure-start') {
    eld.reset();
    eld.enable();
    stalls.start();
    answers.length = 0;
    cpu0 = process.cpuUsage();
    wall0 = performance.now();
  } else if (m.cmd === 'report') {
    eld.disable();
    const c = process.cpuUsage(cpu0);
    const report: ServerReport = {
      answers,
      eventLoopDelayMs: { p50: eld.percentile(50) / 1e6, p99: eld.percentile(99) / 1e6, max: eld.max / 1e6 },
      cpuMs: (c.user + c.system) / 1000,
      wallMs: performance.now() - wall0,
      stalls: stalls.stop(),
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
