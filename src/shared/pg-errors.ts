/** Postgres unique_violation (SQLSTATE 23505); with `constraint`, only a violation of that constraint. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = err as { code?: unknown; constraint_name?: unknown } | null | undefined;
  return e?.code === '23505' && (constraint === undefined || e.constraint_name === constraint);
}
