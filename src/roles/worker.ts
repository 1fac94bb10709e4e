import type { AppContext } from '../shared/app-context.js';
import { startHealthServer } from '../health/server.js';
import { startInsightsWorker } from '../insights/worker.js';
import { startSessionSweepers } from '../sessions/sweepers.js';
import { startTelephonyWorkers } from '../telephony/dial-worker.js';
import { startTranscriptSweeper } from '../transcripts/retention.js';
import { startWebhookWorkers } from '../webhooks/index.js';
import { dialJobs } from '../metrics/worker.js';
import { startCampaignScheduler } from '../campaigns/scheduler.js';

/**
 * The worker role: BullMQ processors (webhook delivery, post-call insights) and sweepers
 * (expired and orphaned sessions, lost insights jobs, expired transcripts).
 */
export async function start(ctx: AppContext): Promise<() => Promise<void>> {
  const health = await startHealthServer(ctx, ctx.config.WORKER_HTTP_PORT, ctx.config.HOST);
  const stops = [() => health.close(), await startWebhookWorkers(ctx), startSessionSweepers(ctx), await startInsightsWorker(ctx), startTranscriptSweeper(ctx), await startTelephonyWorkers(ctx, { onOutcome: (_id, o) => dialJobs.inc({ outcome: o.kind }) }), startCampaignScheduler(ctx)];
  ctx.log.info({ health_port: health.port }, 'worker role started');
  return async () => {
    for (const stop of stops.reverse()) await stop();
  };
}
