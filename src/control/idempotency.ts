import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyReply } from 'fastify';
import { bodyHash, IDEMPOTENCY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../contract/idempotency.js';
import { claimIdempotencyKey, completeIdempotencyKey, releaseIdempotencyKey } from '../db/repos/idempotency-keys.js';
import type { AppContext } from '../shared/app-context.js';
import { errors, fieldError } from '../shared/errors.js';

// Idempotency-Key on creating POSTs (contract §11), for any route: the first request with a key
// claims it in Postgres and runs; its success (status and exact body) is kept 24 h and replayed
// to every later request with the key and the same request, with `Idempotent-Replayed: true`.
// Requests that arrive while the first runs wait for it (one effect). A failed request gives
// its key back, so a retry after a 503 or 402 runs again. The one gap: a process that dies
// between the effect and recording its response leaves a pending key; after LEASE_MS the next
// request with the key runs again.

/** How long a claim is held before another request may take it over (far above any creating POST). */
export const LEASE_MS = 60_000;
/** How long a duplicate waits for the first request before answering 409. */
export const WAIT_MS = 10_000;

export interface IdempotentCall {
  projectId: string;
  key: string;
  /** The operation (method and project-relative path), its path parameters and its body. */
  request: unknown;
  /** Adjusts a replayed body (outbound answers `duplicate: true`). */
  replay?: (body: unknown) => unknown;
}

export interface Answer {
  status: number;
  body: unknown;
}

export async function runIdempotent(ctx: AppContext, reply: FastifyReply, call: IdempotentCall, run: () => Promise<Answer>): Promise<unknown> {
  const requestSha256 = bodyHash(call.request);
  const owner = randomUUID();
  const deadline = Date.now() + WAIT_MS;
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    const row = await claimIdempotencyKey(ctx.sql, { projectId: call.projectId, key: call.key, requestSha256, owner, now: ctx.clock.now(), leaseMs: LEASE_MS });
    if (!row) break;
    if (row.request_sha256 !== requestSha256) {
      throw fieldError(['header', IDEMPOTENCY_HEADER], 'this key was already used with a different request body', 'idempotency_conflict');
    }
    if (row.state === 'done') {
      const body: unknown = JSON.parse(row.response ?? 'null');
      reply.code(row.status_code ?? 200).header(IDEMPOTENT_REPLAYED_HEADER, 'true');
      return call.replay ? call.replay(body) : body;
    }
    if (Date.now() >= deadline) throw errors.conflict('a request with this Idempotency-Key is still in progress', { 'retry-after': '1' });
    await sleep(delay);
  }

  let answer: Answer;
  try {
    answer = await run();
  } catch (err) {
    await releaseIdempotencyKey(ctx.sql, call.projectId, call.key, owner).catch((e: unknown) =>
      ctx.log.warn({ err: { message: (e as Error).message } }, 'idempotency key of a failed request not released; its lease will expire'),
    );
    throw err;
  }
  const recorded = await completeIdempotencyKey(ctx.sql, call.projectId, call.key, owner, answer.status, JSON.stringify(answer.body)).catch((e: unknown) => {
    ctx.log.warn({ err: { message: (e as Error).message } }, 'response to an idempotency key not recorded');
    return false;
  });
  if (!recorded) ctx.log.warn({ project_id: call.projectId }, 'idempotency key claim lost before its response was recorded');
  reply.code(answer.status);
  return answer.body;
}
