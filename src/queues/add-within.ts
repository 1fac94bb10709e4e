import type { AppContext } from '../shared/app-context.js';

export interface AddFailureLog {
  /** Log fields naming the work (`session_id`, `count`, …). */
  fields: Record<string, unknown>;
  /** Says which sweeper will queue the work instead. */
  message: string;
}

/**
 * Runs `add` (queueing work after the transaction that recorded it has committed) for at most
 * `timeoutMs`. Never throws: a failure is logged and left to the sweeper that rebuilds lost jobs
 * from Postgres; after the timeout the add is left running (it lands, or the sweeper redoes it).
 */
export async function addWithinTimeout(ctx: AppContext, add: () => Promise<unknown>, timeoutMs: number, failed: AddFailureLog): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  try {
    await Promise.race([add(), timeout]);
  } catch (err) {
    ctx.log.warn({ err: { message: (err as Error).message }, ...failed.fields }, failed.message);
  } finally {
    clearTimeout(timer);
  }
}
