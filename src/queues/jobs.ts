import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

// What a producer and its worker share about each queue: its name, its one job name, the job's
// payload schema and the options of every job added. Payloads carry ids (and, for insights, an
// unstored transcript), never a credential: Postgres holds the state, a lost job is rebuilt by a
// sweeper. Finished jobs are dropped so that a sweeper can always re-add a job id for unfinished work.

export interface QueueDef<Data> {
  name: string;
  job: string;
  /** The payload; data that does not parse is a permanent failure (never retried). */
  data: z.ZodType<Data>;
  defaultJobOptions: JobsOptions;
  /** Names the queue in log messages ('webhook queue error', 'dial worker error', …). */
  label: string;
}

/** A queue whose jobs take `jobOptions` and, like every queue's, are dropped once finished. */
function defineQueue<Data>(def: Omit<QueueDef<Data>, 'defaultJobOptions'>, jobOptions: JobsOptions = {}): QueueDef<Data> {
  return { ...def, defaultJobOptions: { ...jobOptions, removeOnComplete: true, removeOnFail: true } };
}

// Webhook deliveries: a delivery id and nothing else (no secret, no body, no URL).
export const DELIVERY_QUEUE = 'webhook-deliveries';
export const DELIVERY_JOB = 'deliver';
export const DeliveryJobData = z.strictObject({ deliveryId: z.uuid() });
export type DeliveryJobData = z.infer<typeof DeliveryJobData>;

export const deliveryJobs = defineQueue<DeliveryJobData>({ name: DELIVERY_QUEUE, job: DELIVERY_JOB, data: DeliveryJobData, label: 'webhook' });

// Post-call insights: one job per session, its id the session id; the transcript only when it
// was not stored.
export const INSIGHTS_QUEUE = 'session-insights';
export const INSIGHTS_JOB = 'analyse';
/** Tries per job (the first plus two retries) for provider failures. */
export const INSIGHTS_ATTEMPTS = 3;
/** The insights worker's backoff strategy decides the delay (see insights/worker.ts). */
export const INSIGHTS_BACKOFF = { type: 'insights' } as const;

const TranscriptEntry = z.object({ role: z.string(), text: z.string(), start_ms: z.number(), end_ms: z.number() });
export const InsightsJobData = z.strictObject({ sessionId: z.uuid(), transcript: z.array(TranscriptEntry).optional() });
export type InsightsJobData = z.infer<typeof InsightsJobData>;

export const insightsJobs = defineQueue<InsightsJobData>(
  { name: INSIGHTS_QUEUE, job: INSIGHTS_JOB, data: InsightsJobData, label: 'insights' },
  { attempts: INSIGHTS_ATTEMPTS, backoff: INSIGHTS_BACKOFF },
);

// Outbound dials: the session id only; numbers, carrier and credentials are read from Postgres.
export const DIAL_QUEUE = 'outbound-dials';
export const DIAL_JOB = 'dial';
/** Only a 429 from Twilio is retried (it proves no call was created); see telephony/dial.ts. */
export const DIAL_ATTEMPTS = 4;
export const DialJobData = z.strictObject({ sessionId: z.uuid() });
export type DialJobData = z.infer<typeof DialJobData>;

export const dialJobs = defineQueue<DialJobData>(
  { name: DIAL_QUEUE, job: DIAL_JOB, data: DialJobData, label: 'dial' },
  { attempts: DIAL_ATTEMPTS, backoff: { type: 'exponential', delay: 2000 } },
);
