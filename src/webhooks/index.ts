// Webhooks: endpoints (routes in src/control/routes/webhooks), the outbox, BullMQ delivery.
export { startWebhookWorkers, type WebhookWorkerOptions } from './worker.js';
export { emitCallEvent, type CallEventInput, type EmittedEvent } from './events.js';
export { kickDeliveries, deliveryQueue, DELIVERY_QUEUE, type DueDelivery } from './queue.js';
export { processDelivery, type Outcome, type ProcessorDeps } from './processor.js';
export { sweepOnce } from './sweeper.js';
