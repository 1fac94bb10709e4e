// A webhook worker in its own process, so a test can SIGKILL it mid-delivery.
import { loadConfig } from '../../src/config/env.js';
import { createContext } from '../../src/context.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';

const config = loadConfig(process.env);
const ctx = await createContext(config, { redisPrefix: process.env.CHILD_REDIS_PREFIX });
await startWebhookWorkers(ctx, {
  concurrency: 1,
  sweeper: false,
  leaseMs: Number(process.env.CHILD_LEASE_MS ?? 30_000),
  timeoutMs: Number(process.env.CHILD_TIMEOUT_MS ?? 15_000),
});
process.stdout.write('ready\n');
