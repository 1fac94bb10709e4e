/** Postgres unique_violation (SQLSTATE 23505); with `constraint`, only a violation of that constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint_name?: unknown } | null | undefined;
  return e?.code === '23505' && (constraint === undefined || e.constraint_name === constraint);
}

// Postgres cannot be reached or is not serving: the socket's own errors, postgres.js's connection
// errors, SQLSTATE class 08 (connection exception), 57P01–57P03 (shutdown, crash, starting up)
// and 57014 (statement timeout). The watchdog of a silent server (pg-watchdog.ts) closes the
// connection: CONNECTION_CLOSED.
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', 'ENOTFOUND',
  'CONNECT_TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_DESTROYED', 'CONNECTION_ENDED',
  '57P01', '57P02', '57P03',
  // query_canceled: the statement timeout (DATABASE_STATEMENT_TIMEOUT_MS) on a server too slow to answer.
  '57014',
]);

/** True when the error says the database is unavailable (retry later), not that the query was wrong. */
export function isDatabaseUnavailable(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && (UNREACHABLE_CODES.has(code) || code.startsWith('08'));
}
