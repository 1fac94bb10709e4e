import { UnrecoverableError } from 'bullmq';
import type { QueueDef } from './jobs.js';

// The one rule for failures no retry can fix: they become BullMQ's UnrecoverableError, which
// fails the job at once whatever attempts are left. Anything else is retried per the job's options.

/** Thrown by a job processor for a permanent failure; the worker starter fails the job at once. */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PermanentJobError';
  }
}

/** The job's data as its queue defines it; data that does not parse never will (permanent). */
export function parseJobData<Data>(def: QueueDef<Data>, data: unknown): Data {
  const parsed = def.data.safeParse(data);
  if (!parsed.success) throw new UnrecoverableError(`malformed ${def.label} job`);
  return parsed.data;
}

/** What a processor's error becomes for BullMQ: a PermanentJobError is unrecoverable, the rest as thrown. */
export function forBullMQ(err: unknown): unknown {
  return err instanceof PermanentJobError ? new UnrecoverableError(err.message) : err;
}
