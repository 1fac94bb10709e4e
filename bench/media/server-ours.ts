// Our media node (uWebSockets.js + native pipeline) as a benchmark child process.
import { loadConfig } from '../../src/config/env.js';
import { createContext } from '../../src/context.js';
import { startMediaNode } from '../../src/roles/media.js';
import { twilioStreamRoute } from '../../src/media/twilio-stream-route.js';
import { BrowserTransport } from '../../src/media/browser-transport.js';
import { TwilioTransport } from '../../src/media/twilio-transport.js';
import { createLogger } from '../../src/shared/logger.js';
import { Keyring } from '../../src/shared/crypto/keyring.js';
import { randomBytes, randomUUID } from 'node:crypto';
import { Fault, serveBenchmark } from './ipc.js';

// The self-check's fault, outside src/: a frame the session hands its transport is not sent.
const fault = new Fault();
if (fault.every > 0) {
  for (const T of [BrowserTransport, TwilioTransport]) {
    const sendAudio = T.prototype.sendAudio;
    T.prototype.sendAudio = function (this: InstanceType<typeof T>, frame: Uint8Array) {
      if (!fault.drop(this)) sendAudio.call(this, frame);
    };
  }
}

// BENCH_LOG_LEVEL (silent by default): e.g. `warn` to see why a session ended early.
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'silent';
const config = loadConfig({ ...process.env, LOG_LEVEL: logLevel, MEDIA_PIPELINE: 'echo' });
const ctx = await createContext(config, {
  log: createLogger(logLevel),
  keyring: new Keyring([{ id: 'b', key: randomBytes(32) }]),
  redisPrefix: process.env.BENCH_REDIS_PREFIX!,
});
// The Twilio stream route registered as src/roles/media.ts does (carrier sessions, --carrier).
const nodeId = randomUUID();
// BENCH_REGISTER=<capacity>: in the media node registry (two-nodes.ts), as the media role is.
const capacity = Number(process.env.BENCH_REGISTER ?? 0);
const register = capacity > 0 ? { publicUrl: (port: number) => `ws://127.0.0.1:${port}`, capacity } : undefined;
const server = await startMediaNode(ctx, { port: 0, host: '127.0.0.1', nodeId, routes: [twilioStreamRoute(ctx, nodeId)], register });

serveBenchmark(
  server.port,
  () => {
    let ringDrops = 0;
    for (const s of server.sessions.values()) ringDrops += s.droppedFrames;
    return { sessions: server.sessions.size, ringDrops, faultDrops: fault.dropped };
  },
  () =>
    void server.idle().then(async () => {
      await ctx.sql.end({ timeout: 2 });
      ctx.redis.disconnect();
      process.exit(0);
    }),
);
