import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Writable } from 'node:stream';
import type { Harness } from '../helpers/harness.js';
import { startHarness } from '../helpers/harness.js';
import { createLogger } from '../../src/shared/logger.js';

/** Every log line the app writes, at trace level, for asserting that secrets never reach it. */
export class LogCapture extends Writable {
  readonly lines: string[] = [];
  override _write(chunk: Buffer, _enc: BufferEncoding, done: () => void): void {
    this.lines.push(chunk.toString('utf8'));
    done();
  }
  text(): string {
    return this.lines.join('');
  }
}

/**
 * The shared harness, with the app's logger swapped for one that records at trace level. The
 * Fastify instance takes its logger at build time, so the app is rebuilt on the new context.
 */
export async function startHarnessWithLogs(env: Record<string, string> = {}): Promise<Harness & { logs: LogCapture }> {
  const logs = new LogCapture();
  const h = await startHarness({ env, app: false });
  h.ctx.log = createLogger('trace', 'voice', logs);
  const { buildApp } = await import('../../src/control/app.js');
  const app = await buildApp(h.ctx);
  const close = h.close;
  return {
    ...h,
    app,
    logs,
    close: async () => {
      await app.close();
      await close();
    },
  };
}

/** An agent row straight in the table (the agents routes belong to another issue). */
export async function insertAgent(h: Harness, projectId: string, opts: { active?: boolean } = {}): Promise<string> {
  const [row] = await h.ctx.sql`
    insert into agents (project_id, name, prompt, language, pipeline_mode, pipeline_config, backchannel, can_send_dtmf,
      record_calls, store_transcript, webhook_include_transcript, webhook_include_recording_url, webhook_secret_sealed, is_active)
    values (${projectId}, ${`agent-${randomBytes(3).toString('hex')}`}, 'You are helpful.', 'en-US', 'cascade',
      ${h.ctx.sql.json({})}, true, false, false, false, false, false, 'sealed', ${opts.active ?? true})
    returning id`;
  return row.id as string;
}

export async function projectRevision(h: Harness, projectId: string): Promise<number> {
  const [row] = await h.ctx.sql`select revision from projects where id = ${projectId}`;
  return row.revision as number;
}

/** A loopback port nothing listens on (connections are refused). */
export async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}
