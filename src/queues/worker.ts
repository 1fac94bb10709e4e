import { Worker, type Job, type WorkerOptions } from 'bullmq';
import type { RedisOptions } from 'ioredis';
import type { AppContext } from '../shared/app-context.js';
import { openRedis } from '../shared/redis.js';
import type { QueueDef } from './jobs.js';
import { forBullMQ, parseJobData } from './permanent.js';
import { bullPrefix } from './prefix.js';
import { producerQueue } from './producer.js';
import { queueJobsProcessed, QUEUE_STATES, trackQueueDepth } from '../metrics/worker.js';

export interface QueueWorkerSpec<Data> {
  queue: QueueDef<Data>;
  /** Jobs in flight at once in this process. */
  concurrency: number;
  /** Runs one job with its parsed data; throw PermanentJobError for what no retry can fix. */
  process: (data: Data, job: Job) => Promise<void>;
  /** Logged for every failed attempt; omitted when the processor logs its failures itself. */
  failedMessage?: string;
  /** Options of the worker's own Redis connection (e.g. auto-pipelining). */
  redis?: Omit<RedisOptions, 'maxRetriesPerRequest'>;
  /** BullMQ worker settings (e.g. a custom backoff strategy). */
  settings?: WorkerOptions['settings'];
}

export interface QueueWorker {
  worker: Worker;
  /** Closes the worker (waiting for jobs in flight), then its Redis connection. */
  close: () => Promise<void>;
}

/** Starts a BullMQ worker on its own Redis connection; resolves once it is consuming. */
export async function startQueueWorker<Data>(ctx: AppContext, spec: QueueWorkerSpec<Data>): Promise<QueueWorker> {
  const { queue: def } = spec;
  // A worker blocks on its connection, so it has its own; BullMQ requires maxRetriesPerRequest: null.
  const redis = openRedis(ctx.config.REDIS_URL, ctx.config.REDIS_CLUSTER_NODES, { ...spec.redis, maxRetriesPerRequest: null });
  redis.on('error', (err: Error) => ctx.log.warn({ err: { message: err.message } }, `${def.label} worker redis error`));
  const worker = new Worker(
    def.name,
    async (job) => {
      const data = parseJobData(def, job.data);
      try {
        await spec.process(data, job);
      } catch (err) {
        throw forBullMQ(err);
      }
    },
    {
      connection: redis,
      prefix: bullPrefix(ctx),
      concurrency: spec.concurrency,
      // Finished jobs are dropped so that a sweeper can always re-add a job id for unfinished work.
      removeOnComplete: { count: 0 },
      removeOnFail: { count: 0 },
      ...(spec.settings ? { settings: spec.settings } : {}),
    },
  );
  worker.on('error', (err) => ctx.log.warn({ err: { message: err.message } }, `${def.label} worker error`));
  const { failedMessage } = spec;
  if (failedMessage) worker.on('failed', (job, err) => ctx.log.warn({ job_id: job?.id, err: { message: err.message } }, failedMessage));
  worker.on('completed', () => queueJobsProcessed.inc({ queue: def.name, result: 'completed' }));
  worker.on('failed', () => queueJobsProcessed.inc({ queue: def.name, result: 'failed' }));
  await worker.waitUntilReady();
  // /metrics reads the queue's depth through the producer side (the worker's connection blocks).
  const depth = producerQueue(ctx, def);
  const untrackDepth = trackQueueDepth(def.name, () => depth.getJobCounts(...QUEUE_STATES));
  return {
    worker,
    close: async () => {
      untrackDepth();
      await worker.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/**
 * Starts a queue worker beside its sweeper, already running (`stopSweeper` stops it): a worker
 * that never starts leaves no sweeper behind. Resolves to a stop function: sweeper, then worker.
 */
export async function startWorkerWithSweeper<Data>(
  ctx: AppContext,
  stopSweeper: () => Promise<void>,
  spec: QueueWorkerSpec<Data>,
): Promise<() => Promise<void>> {
  const worker = await startQueueWorker(ctx, spec).catch(async (err: unknown) => {
    await stopSweeper();
    throw err;
  });
  return async () => {
    await stopSweeper();
    await worker.close();
  };
}
