// Our media node running agent calls (`npm run bench:media -- --agent`): the cascade
// conversation engine on every call with bench:turns' instant in-process providers
// (bench/turns/fakes.ts), so the CPU measured is the media path plus the engine (VAD,
// endpointing, turn-taking, echo reference, TTS resampling and pacing), not a provider's.
import { randomBytes, randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/env.js';
import { createContext } from '../../src/context.js';
import { CascadeCall } from '../../src/conversation/index.js';
import { Phrases } from '../../src/conversation/phrases.js';
import { SentenceSplitter } from '../../src/providers/llm/sentences.js';
import { startMediaNode } from '../../src/roles/media.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { createLogger } from '../../src/shared/logger.js';
import { benchAdapters } from '../turns/fakes.js';
import { RATE_OUT_HZ, SHORT_ANSWER } from '../turns/scenarios.js';
import { serveBenchmark } from './ipc.js';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', MEDIA_PIPELINE: 'agent' });
const ctx = await createContext(config, {
  log: createLogger('silent'),
  keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]),
  redisPrefix: process.env.BENCH_REDIS_PREFIX!,
});

const { factory, tts } = benchAdapters({ streamingStt: false, rateOutHz: RATE_OUT_HZ });
// Every sentence the fakes will speak is synthesized now, so no call waits on espeak-ng.
const splitter = new SentenceSplitter({ minChars: 2 });
for (const s of [...splitter.push(SHORT_ANSWER), splitter.flush()]) if (s) tts.clip(s);
for (const p of Object.values(Phrases)) tts.clip(p);

let answers = 0;
const server = await startMediaNode(ctx, {
  port: 0,
  host: '127.0.0.1',
  nodeId: randomUUID(),
  pipeline: 'agent',
  conversation: {
    adapterFactory: factory,
    created: (call) => {
      if (call instanceof CascadeCall) call.onAnswerLatency = () => void answers++;
    },
  },
});

serveBenchmark(
  server.port,
  () => {
    let ringDrops = 0;
    for (const s of server.sessions.values()) ringDrops += s.droppedFrames;
    return { sessions: server.sessions.size, ringDrops, faultDrops: 0, answers };
  },
  () =>
    void server.drain(0).then(async () => {
      await ctx.sql.end({ timeout: 2 });
      ctx.redis.disconnect();
      process.exit(0);
    }),
);
