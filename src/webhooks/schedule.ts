// Retry timing. WEBHOOK_RETRY_SCHEDULE_MS[k] is the delay before attempt k+1 (0-based k), so
// its length is the number of attempts. Every delay but the first gets ±10% jitter so that a
// receiver that failed for many deliveries at once is not hit by all retries at once.

export const JITTER = 0.1;

/** Delay before attempt number `attemptIndex` (0-based), jittered after the first. */
export function scheduledDelayMs(schedule: readonly number[], attemptIndex: number, random: () => number = Math.random): number {
  const base = schedule[Math.min(attemptIndex, schedule.length - 1)] ?? 0;
  if (attemptIndex === 0) return base;
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/** The next delay after a failure: the schedule's, or `Retry-After` when that is longer. */
export function nextDelayMs(
  schedule: readonly number[],
  attemptsDone: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number {
  const planned = scheduledDelayMs(schedule, attemptsDone, random);
  return retryAfterMs !== null && retryAfterMs > planned ? retryAfterMs : planned;
}
