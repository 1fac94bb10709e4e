import { createServer, type AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { startMediaNode } from '../../src/roles/media.js';
import type { MediaServer } from '../../src/media/server.js';
import { walletCredit } from '../../src/sessions/wallet.js';
import { startWebhookWorkers } from '../../src/webhooks/index.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { createTenant, PASSWORD, type Tenant } from '../helpers/fixtures.js';
import { verifiedAccount } from '../conversation/fixtures.js';

// The real service for client tests: the control plane listening on a port, a media node on
// the port `ws_url` names, optionally the webhook workers; and a funded tenant with a verified
// `local` provider account.

export interface Service {
  h: Harness;
  app: FastifyInstance;
  media: MediaServer;
  baseUrl: string;
  close: () => Promise<void>;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

export interface ServiceOptions {
  env?: Record<string, string>;
  /** `echo` (default) mirrors the caller; `agent` runs the conversation engine. */
  pipeline?: 'echo' | 'agent';
  webhookWorkers?: boolean;
}

export async function startService(opts: ServiceOptions = {}): Promise<Service> {
  const mediaPort = await freePort();
  const h = await startHarness({ env: { PUBLIC_MEDIA_URL: `ws://127.0.0.1:${mediaPort}`, ...opts.env } });
  await h.app.listen({ port: 0, host: '127.0.0.1' });
  const media = await startMediaNode(h.ctx, { port: mediaPort, host: '127.0.0.1', pipeline: opts.pipeline ?? 'echo' });
  const stopWorkers = opts.webhookWorkers ? await startWebhookWorkers(h.ctx, { concurrency: 2, sweepIntervalMs: 100, overdueGraceMs: 300 }) : null;
  const { port } = h.app.server.address() as AddressInfo;
  return {
    h,
    app: h.app,
    media,
    baseUrl: `http://127.0.0.1:${port}`,
    close: async () => {
      await stopWorkers?.();
      await media.drain(0);
      await h.close();
    },
  };
}

export interface FundedTenant extends Tenant {
  password: string;
  localAccountId: string;
}

/** A tenant with a funded wallet and a verified `local` provider account. */
export async function fundedTenant(h: Harness, creditNanoUsd = 10_000_000_000n): Promise<FundedTenant> {
  const tenant = await createTenant(h);
  if (creditNanoUsd > 0n) await walletCredit(h.ctx, tenant.projectId, creditNanoUsd);
  const localAccountId = await verifiedAccount(h, tenant.projectId, 'local', null);
  return { ...tenant, password: PASSWORD, localAccountId };
}

/** An agent body on the `local` provider (PocketSphinx, the `echo` model, espeak-ng). */
export function localAgentBody(accountId: string, fields: Record<string, unknown> = {}) {
  return {
    name: 'sdk test agent',
    prompt: 'You are a helpful agent.',
    pipeline_mode: 'cascade' as const,
    language: 'en-US',
    pipeline_config: {
      stt: { account_id: accountId, model: 'pocketsphinx-en-us' },
      llm: { account_id: accountId, model: 'echo' },
      tts: { account_id: accountId, model: 'espeak-ng', voice: 'en-us' },
    },
    ...fields,
  };
}
