// The worker plane: BullMQ queue definitions, the producer and worker helpers, the failure rule.
// Imports only shared, config, contract, db and npm packages; domain folders import it.
export { bullPrefix } from './prefix.js';
export * from './jobs.js';
export { producerQueue } from './producer.js';
export { addWithinTimeout, type AddFailureLog } from './add-within.js';
export { startQueueWorker, startWorkerWithSweeper, type QueueWorker, type QueueWorkerSpec } from './worker.js';
export { PermanentJobError, parseJobData, forBullMQ } from './permanent.js';
