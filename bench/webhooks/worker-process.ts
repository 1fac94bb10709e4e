// One webhook worker process for the scale-out rows of the benchmark.
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';

const ctx = await createContext(loadConfig(process.env), { redisPrefix: process.env.BENCH_REDIS_PREFIX });
const stop = await startWebhookWorkers(ctx, { concurrency: Number(process.env.BENCH_WORKER_CONCURRENCY ?? 16), sweeper: false });
let cpu0 = process.cpuUsage();
process.on('message', async (msg: { cmd: string }) => {
  if (msg.cmd === 'cpu-reset') {
    cpu0 = process.cpuUsage();
    process.send!({ cmd: 'cpu-reset' });
  } else if (msg.cmd === 'cpu') {
    const c = process.cpuUsage(cpu0);
    process.send!({ cmd: 'cpu', ms: (c.user + c.system) / 1000 });
  } else if (msg.cmd === 'exit') {
    await stop();
    await closeContext(ctx);
    process.exit(0);
  }
});
process.send!({ cmd: 'ready' });
