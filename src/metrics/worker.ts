import { Counter, Gauge } from 'prom-client';
import { registry } from './registry.js';

// The worker role: webhook attempts, dead letters, dial outcomes, and every queue's jobs.

export const webhookAttempts = new Counter({
  name: 'voice_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (delivered, retry, dead; skipped and not_due when no request was made)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const webhookDeadLetters = new Counter({
  name: 'voice_webhook_dead_letters_total',
  help: 'Webhook deliveries that used up their retry schedule (dead letters)',
  registers: [registry],
});

/** One attempt's outcome (webhooks/worker.ts). */
export function countWebhookAttempt(outcome: string): void {
  webhookAttempts.inc({ outcome });
  if (outcome === 'dead') webhookDeadLetters.inc();
}

export const dialJobs = new Counter({
  name: 'voice_dial_jobs_total',
  help: 'Outbound dial jobs by outcome (dialed, skipped, failed, unknown)',
  labelNames: ['outcome'],
  registers: [registry],
});

export const queueJobsProcessed = new Counter({
  name: 'voice_queue_jobs_processed_total',
  help: 'Jobs this process ran, by queue and result (completed, failed)',
  labelNames: ['queue', 'result'],
  registers: [registry],
});

/** Job states read from BullMQ at every scrape. */
export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'prioritized'] as const;
/** A scrape waits at most this long for one queue's counts (Redis down: the queue is left out). */
const COUNTS_TIMEOUT_MS = 1000;

type JobCounts = () => Promise<Record<string, number>>;
const queues = new Map<string, Set<JobCounts>>();

new Gauge({
  name: 'voice_queue_jobs',
  help: 'Jobs in each queue by state, read from Redis (BullMQ getJobCounts) at scrape time',
  labelNames: ['queue', 'state'],
  registers: [registry],
  async collect() {
    this.reset();
    await Promise.all(
      [...queues].map(async ([queue, readers]) => {
        const reader = readers.values().next().value;
        if (!reader) return;
        let timer: NodeJS.Timeout | undefined;
        const counts = await Promise.race([reader(), new Promise<null>((r) => (timer = setTimeout(() => r(null), COUNTS_TIMEOUT_MS)))]).catch(() => null);
        clearTimeout(timer);
        if (!counts) return;
        for (const state of QUEUE_STATES) this.set({ queue, state }, counts[state] ?? 0);
      }),
    );
  },
});

/** Reads `queue`'s depth at every scrape (one reader per queue is used); returns the function that stops it. */
export function trackQueueDepth(queue: string, counts: JobCounts): () => void {
  let readers = queues.get(queue);
  if (!readers) queues.set(queue, (readers = new Set()));
  readers.add(counts);
  return () => {
    readers.delete(counts);
    if (readers.size === 0 && queues.get(queue) === readers) queues.delete(queue);
  };
}
