// The service under test for bench:admission, in its own process: the api and worker roles as
// `npm start` runs them (ROLES=api,worker), plus one media node entry in the registry (without a
// media socket: admission only reads the registry), so every admission runs the node pick too.
// Answers `stats` (its CPU) over IPC; `exit` stops the roles.
import { randomUUID } from 'node:crypto';
import { loadConfig } from '../../src/config/env.js';
import { closeContext, createContext } from '../../src/context.js';
import { NodeRegistry } from '../../src/media/node-registry.js';
import { runRoles } from '../../src/roles/run.js';
import { createLogger } from '../../src/shared/logger.js';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', ROLES: 'api,worker' });
const log = createLogger('silent');
const ctx = await createContext(config, { log, redisPrefix: process.env.BENCH_REDIS_PREFIX! });
const stopRoles = await runRoles(ctx, config.ROLES);
// Room for every session a run admits: a session stays pending on the node until its token expires.
const registry = new NodeRegistry(ctx, { nodeId: randomUUID(), publicUrl: 'ws://127.0.0.1:1/', capacity: 1_000_000, live: () => new Map() }, log);
await registry.beat(true);

process.on('message', (m: { cmd: string }) => {
  if (m.cmd === 'stats') {
    const u = process.cpuUsage();
    process.send!({ type: 'stats', cpuMs: (u.user + u.system) / 1000 });
  } else if (m.cmd === 'exit') {
    void (async () => {
      await registry.stop();
      await stopRoles();
      await closeContext(ctx);
      process.exit(0);
    })();
  }
});
process.send!({ type: 'ready', port: config.PORT });
