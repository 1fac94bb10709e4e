import t from 'tap';
import { UnrecoverableError, type Job, type Queue } from 'bullmq';
import { z } from 'zod';
import { startHarness } from '../helpers/harness.js';
import { PermanentJobError, producerQueue, startQueueWorker, type QueueDef } from '../../src/queues/index.js';
import { deliveryQueue, startWebhookWorkers } from '../../src/webhooks/index.js';
import { insightsQueue, startInsightsWorker } from '../../src/insights/index.js';
import { dialQueue } from '../../src/telephony/dial-queue.js';
import { startTelephonyWorkers } from '../../src/telephony/dial-worker.js';

// One rule for permanent failures on every queue: job data that fails its queue's schema, and a
// processor's PermanentJobError, fail the job at once (BullMQ's UnrecoverableError) whatever
// attempts are left; any other error is retried.

const h = await startHarness({ app: false });
t.teardown(h.close);

// Attempts to spare and a short backoff: a retry, were one made, would show within the test.
const RETRYABLE = { attempts: 3, backoff: { type: 'fixed', delay: 10 }, removeOnFail: false } as const;

/** The job once it has finished (kept by `removeOnFail: false`). */
async function finished(queue: Queue, id: string, timeoutMs = 10_000): Promise<Job> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const state = await queue.getJobState(id);
    if (state === 'failed' || state === 'completed') return (await queue.getJob(id))!;
    if (Date.now() > deadline) throw new Error(`job ${id} still ${state}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const cases = [
  {
    label: 'webhook',
    queue: () => deliveryQueue(h.ctx),
    start: () => startWebhookWorkers(h.ctx, { sweeper: false, concurrency: 1 }),
    data: { deliveryId: 'not-a-uuid' },
  },
  {
    label: 'insights',
    queue: () => insightsQueue(h.ctx),
    start: () => startInsightsWorker(h.ctx, { sweeper: false, retryDelayMs: 10 }),
    data: { sessionId: 42 },
  },
  {
    label: 'dial',
    queue: () => dialQueue(h.ctx),
    start: () => startTelephonyWorkers(h.ctx, { sweeper: false }),
    data: { sessionId: '0b9c3a43-0a8e-4c8e-9a57-2d5b8f7d0c11', callee: '+14155550100' },
  },
];

for (const c of cases) {
  t.test(`${c.label} queue: malformed job data fails at once, without retries`, async (t) => {
    const stop = await c.start();
    t.teardown(stop);
    const queue = c.queue();
    await queue.add('malformed', c.data, { jobId: `malformed-${c.label}`, ...RETRYABLE });
    const job = await finished(queue, `malformed-${c.label}`);
    t.equal(await job.getState(), 'failed');
    t.equal(job.attemptsMade, 1, 'one attempt of the three allowed');
    t.equal(job.failedReason, `malformed ${c.label} job`);
    t.match(job.stacktrace?.[0], /^UnrecoverableError: /, 'as UnrecoverableError');
  });
}

t.test('a processor\'s PermanentJobError is not retried; an ordinary error is', async (t) => {
  const probe: QueueDef<{ kind: 'permanent' | 'ordinary' }> = {
    name: 'permanence-probe',
    job: 'try',
    data: z.strictObject({ kind: z.enum(['permanent', 'ordinary']) }),
    defaultJobOptions: RETRYABLE,
    label: 'probe',
  };
  const calls = new Map<string, number>();
  const failures: { id: string; err: Error }[] = [];
  const started = await startQueueWorker(h.ctx, {
    queue: probe,
    concurrency: 2,
    process: async ({ kind }, job) => {
      calls.set(job.id!, (calls.get(job.id!) ?? 0) + 1);
      if (kind === 'permanent') throw new PermanentJobError('this can never work');
      throw new Error('try again later');
    },
  });
  t.teardown(started.close);
  started.worker.on('failed', (job, err) => failures.push({ id: job!.id!, err }));
  const queue = producerQueue(h.ctx, probe);
  await queue.add(probe.job, { kind: 'permanent' }, { jobId: 'permanent' });
  await queue.add(probe.job, { kind: 'ordinary' }, { jobId: 'ordinary' });

  const permanent = await finished(queue, 'permanent');
  t.equal(await permanent.getState(), 'failed');
  t.equal(permanent.attemptsMade, 1);
  t.equal(calls.get('permanent'), 1, 'processed once');
  t.equal(permanent.failedReason, 'this can never work', 'the message is kept');
  const permanentFailures = failures.filter((f) => f.id === 'permanent');
  t.equal(permanentFailures.length, 1);
  t.ok(permanentFailures[0].err instanceof UnrecoverableError, 'handed to BullMQ as UnrecoverableError');

  const ordinary = await finished(queue, 'ordinary');
  t.equal(await ordinary.getState(), 'failed');
  t.equal(ordinary.attemptsMade, 3, 'every attempt used');
  t.equal(calls.get('ordinary'), 3);
  t.notOk(failures.some((f) => f.id === 'ordinary' && f.err instanceof UnrecoverableError), 'never unrecoverable');

  await queue.obliterate({ force: true });
});
