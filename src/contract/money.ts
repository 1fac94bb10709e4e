// Money is integer nano-USD (bigint); the wire carries decimal strings (contract §6).

export const CURRENCY = 'USD';
export const MONEY_SCALE = 1_000_000_000;
export const RATE_NANO_USD_PER_MIN = 5_000_000n;
export const RATE_VERSION = '2026-01';

/** Hold placed at admission: the whole maximum duration, rounded up to minutes. */
export function holdFor(maxDurationSeconds: number, rate = RATE_NANO_USD_PER_MIN): bigint {
  return BigInt(Math.ceil(maxDurationSeconds / 60)) * rate;
}

/** Settled cost: every started minute is billed (61 s bills as 2 minutes). */
export function costFor(connectedSeconds: number, rate = RATE_NANO_USD_PER_MIN): bigint {
  return BigInt(Math.ceil(connectedSeconds / 60)) * rate;
}

/** Whole seconds between two instants, rounded up (contract §5 `connected_seconds`). */
export function secondsBetweenRoundedUp(from: Date, to: Date): number {
  const ms = to.getTime() - from.getTime();
  return ms <= 0 ? 0 : Math.ceil(ms / 1000);
}
