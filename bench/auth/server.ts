// The api role for bench:auth, in its own process: `ours` is the real control plane; `baseline`
// is the login path as it was before throttling (find the account, scrypt, compare) on a bare
// Fastify, with the same scrypt parameters and the same database.
import Fastify from 'fastify';
import { loadConfig } from '../../src/config/env.js';
import { createContext } from '../../src/context.js';
import { buildApp } from '../../src/control/app.js';
import { findAccountByEmail } from '../../src/db/repos/accounts.js';
import { scryptForBaseline } from './scrypt-baseline.js';

const config = loadConfig({ ...process.env, LOG_LEVEL: 'silent', TRUST_PROXY: 'true', PORT: '0' });
const ctx = await createContext(config, { redisPrefix: process.env.BENCH_REDIS_PREFIX });
const kind = process.env.BENCH_SERVER ?? 'ours';

let port: number;
if (kind === 'ours') {
  const app = await buildApp(ctx);
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
} else {
  const app = Fastify();
  app.post('/console/auth/login', async (req, reply) => {
    const { email, password } = req.body as { email: string; password: string };
    const account = await findAccountByEmail(ctx, email);
    const ok = account ? await scryptForBaseline(password, account.password_hash) : false;
    return reply.code(ok ? 200 : 401).send(ok ? { ok } : { detail: 'invalid credentials' });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
}
process.send?.({ port });
